package auth

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

// TestCassandraStoreRoles runs thriftd on the Cassandra test cluster auth
// (test/cassandra/cluster start auth: Cassandra 5.0 with
// PasswordAuthenticator and CassandraAuthorizer), logged in to it as the
// cluster's superuser: roles and grants made with CQL, inheritance
// through a role, log in to thriftd and decide its calls, within the
// caches' validity.
func TestCassandraStoreRoles(t *testing.T) {
	points := testenv.CassandraCluster(t, "auth")
	var b [4]byte
	rand.Read(b[:])
	sfx := hex.EncodeToString(b[:])
	prefix := "a" + sfx + "_"
	user, group := "u_"+sfx, "g_"+sfx

	s := superSession(t, points, prefix)
	// Registered after superSession's, so that it runs before the
	// session closes, and once thriftd has stopped.
	t.Cleanup(func() {
		for _, r := range []string{user, group} {
			s.Query("DROP ROLE IF EXISTS " + r).Exec()
		}
	})
	exec := func(q string) {
		t.Helper()
		if err := s.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	dir := t.TempDir()
	pwFile := filepath.Join(dir, "cassandra.password")
	if err := os.WriteFile(pwFile, []byte("cassandra\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	n := testenv.NewNodeArgs(t, thriftdBin, "-config", testenv.Fixture("storage-conf-0.6-test.xml"),
		"-listen", "127.0.0.1:0", "-log-format", "json", "-log-level", "debug", "-admin", "127.0.0.1:0", "-api", "auto",
		"-cassandra", points, "-cassandra-prefix", prefix, "-cassandra-username", "cassandra", "-cassandra-password-file", pwFile,
		"-authenticator", "PasswordAuthenticator", "-authorizer", "CassandraAuthorizer")
	n.Start()

	// The user may read Keyspace1 through the group; the grant names the
	// CQL keyspace that holds it.
	exec(fmt.Sprintf("CREATE ROLE %s WITH PASSWORD = '%s' AND LOGIN = true", user, alicePassword))
	exec(fmt.Sprintf("CREATE ROLE %s", group))
	exec(fmt.Sprintf(`GRANT SELECT ON KEYSPACE "%sKeyspace1" TO %s`, prefix, group))
	exec(fmt.Sprintf("GRANT %s TO %s", group, user))

	cl, err := testenv.Dial19(n.Addr, true, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if got, want := why(cl.Login(ctx, &cassandra19.AuthenticationRequest{Credentials: creds(user, wrongPassword)})), "AuthenticationException: Username and/or password are incorrect"; got != want {
		t.Errorf("wrong password: %q, want %q", got, want)
	}
	if err := cl.Login(ctx, &cassandra19.AuthenticationRequest{Credentials: creds(user, alicePassword)}); err != nil {
		t.Fatalf("login as a role made with CQL: %v", why(err))
	}
	if err := cl.SetKeyspace(ctx, "Keyspace1"); err != nil {
		t.Fatal(err)
	}
	parent := &cassandra19.ColumnParent{ColumnFamily: "Standard1"}
	pred := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 10}}
	one := cassandra19.ConsistencyLevel_ONE
	col := &cassandra19.Column{Name: []byte("c"), Value: []byte("v"), Timestamp: ptr(int64(1))}
	if _, err := cl.GetSlice(ctx, []byte("k"), parent, pred, one); err != nil {
		t.Errorf("get_slice with SELECT through a role: %v", why(err))
	}
	noModify := fmt.Sprintf("InvalidRequestException: User %s has no MODIFY permission on <table Keyspace1.Standard1> or any of its parents", user)
	if got := why(cl.Insert(ctx, []byte("k"), parent, col, one)); got != noModify {
		t.Errorf("insert without MODIFY: %q, want %q", got, noModify)
	}
	// A grant made with CQL applies within the permissions validity (2 s).
	exec(fmt.Sprintf(`GRANT MODIFY ON TABLE "%sKeyspace1"."Standard1" TO %s`, prefix, user))
	deadline := time.Now().Add(time.Minute)
	for {
		err := cl.Insert(ctx, []byte("k"), parent, col, one)
		if err == nil {
			break
		}
		if why(err) != noModify || time.Now().After(deadline) {
			t.Fatalf("insert after GRANT MODIFY: %v", why(err))
		}
		time.Sleep(200 * time.Millisecond)
	}
	if took := 10*time.Second - time.Until(deadline); took > 5*time.Second {
		t.Errorf("the grant took %v to apply, over the 2 s validity", took)
	}
	noPasswords(t, n.Logs())
}

// superSession logs in to the auth cluster at points as its superuser
// (waiting for a fresh node to make it) and, when the test ends, drops the
// keyspaces thriftd made under prefix (testenv.DropPrefix cannot log in to
// this cluster). Register it before the thriftd node, so that its cleanup
// runs once thriftd has stopped.
func superSession(t *testing.T, points, prefix string) *gocql.Session {
	t.Helper()
	c := gocql.NewCluster(strings.Split(points, ",")...)
	c.Authenticator = gocql.PasswordAuthenticator{Username: "cassandra", Password: "cassandra"}
	c.Timeout = 60 * time.Second
	var s *gocql.Session
	var err error
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(time.Second) {
		// A fresh node makes its superuser about 10 s after it starts.
		if s, err = c.CreateSession(); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatalf("logging in to the auth cluster as cassandra: %v", err)
	}
	t.Cleanup(s.Close)
	t.Cleanup(func() {
		iter := s.Query("SELECT keyspace_name FROM system_schema.keyspaces").Iter()
		var name string
		var drop []string
		for iter.Scan(&name) {
			if strings.HasPrefix(name, prefix) {
				drop = append(drop, name)
			}
		}
		if err := iter.Close(); err != nil {
			t.Logf("listing the test's keyspaces: %v", err)
		}
		for _, ks := range drop {
			if err := s.Query(`DROP KEYSPACE "` + ks + `"`).Exec(); err != nil {
				t.Logf("dropping %s: %v", ks, err)
			}
		}
	})
	return s
}

// thriftdOnAuthCluster is a thriftd on the auth cluster, logged in to it
// as user (password cassandra), with extra arguments last.
func thriftdOnAuthCluster(t *testing.T, points, prefix, user string, extra ...string) *testenv.Node {
	t.Helper()
	pwFile := filepath.Join(t.TempDir(), "cassandra.password")
	if err := os.WriteFile(pwFile, []byte("cassandra\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-config", testenv.Fixture("storage-conf-0.6-test.xml"),
		"-listen", "127.0.0.1:0", "-log-format", "json", "-log-level", "info", "-admin", "off", "-api", "auto",
		"-cassandra", points, "-cassandra-prefix", prefix, "-cassandra-username", user, "-cassandra-password-file", pwFile}, extra...)
	return testenv.NewNodeArgs(t, thriftdBin, args...)
}

// TestAllowAllInFrontOfAuthorizingCluster: thriftd reaches the cluster as
// a superuser, so PasswordAuthenticator with AllowAllAuthorizer would
// serve every user every table the cluster (CassandraAuthorizer) refuses
// them. Start-up stops, naming the settings, unless
// -accept-allow-all-authorizer says it is meant. (The second start reuses
// the schema the first made, so it is quick.)
func TestAllowAllInFrontOfAuthorizingCluster(t *testing.T) {
	points := testenv.CassandraCluster(t, "auth")
	var b [4]byte
	rand.Read(b[:])
	prefix := "o" + hex.EncodeToString(b[:]) + "_"
	superSession(t, points, prefix)

	n := thriftdOnAuthCluster(t, points, prefix, "cassandra", "-authenticator", "PasswordAuthenticator")
	if err := n.TryStart(); err == nil {
		t.Fatalf("thriftd started with AllowAllAuthorizer in front of a cluster enforcing CassandraAuthorizer\n%s", n.Tail(20))
	}
	stopped := n.Records(map[string]string{"msg": "thriftd stopped"})
	if len(stopped) != 1 {
		t.Fatalf("no \"thriftd stopped\" line:\n%s", n.Tail(20))
	}
	msg := fmt.Sprint(stopped[0]["err"])
	for _, want := range []string{"enforces authorizer CassandraAuthorizer", "auth.authorizer", "org.apache.cassandra.auth.AllowAllAuthorizer", "auth.accept_allow_all_authorizer", "-accept-allow-all-authorizer"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal does not name %q: %s", want, msg)
		}
	}

	n = thriftdOnAuthCluster(t, points, prefix, "cassandra", "-authenticator", "PasswordAuthenticator", "-accept-allow-all-authorizer")
	n.Start()
	if w := n.Records(map[string]string{"level": "WARN", "cluster_authorizer": "CassandraAuthorizer"}); len(w) != 1 {
		t.Errorf("no warning of the accepted AllowAllAuthorizer:\n%s", n.Tail(20))
	}
	// CassandraAuthorizer in front of it needs no choice: every other
	// test of the auth cluster starts so.
}

// TestStartBeforeTheRoleExists: a fresh node with PasswordAuthenticator
// opens its CQL port some seconds before it makes its superuser, so a
// thriftd started right after it is refused its login at first. It waits,
// saying so, and serves once the role exists, as when the role is made
// here after thriftd's first refusal.
func TestStartBeforeTheRoleExists(t *testing.T) {
	points := testenv.CassandraCluster(t, "auth")
	var b [4]byte
	rand.Read(b[:])
	sfx := hex.EncodeToString(b[:])
	prefix := "l" + sfx + "_"
	late := "late_" + sfx
	s := superSession(t, points, prefix)
	t.Cleanup(func() { s.Query("DROP ROLE IF EXISTS " + late).Exec() })

	n := thriftdOnAuthCluster(t, points, prefix, late, "-authenticator", "PasswordAuthenticator", "-authorizer", "CassandraAuthorizer")
	started := make(chan error, 1)
	go func() { started <- n.TryStart() }()
	// thriftd has been refused, and says it is waiting.
	w := n.WaitLog(t, 2*time.Minute, map[string]string{"level": "WARN", "user": late, "attempt": "1"})
	if !strings.Contains(fmt.Sprint(w["err"]), "and/or password are incorrect") {
		t.Errorf("the retry line's err: %v", w["err"])
	}
	if err := s.Query(fmt.Sprintf("CREATE ROLE %s WITH PASSWORD = 'cassandra' AND LOGIN = true AND SUPERUSER = true", late)).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := <-started; err != nil {
		t.Fatalf("%v\n%s", err, n.Tail(30))
	}
	c, err := testenv.Dial19(n.Addr, true, 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Login(ctx, &cassandra19.AuthenticationRequest{Credentials: creds(late, "cassandra")}); err != nil {
		t.Fatalf("login through thriftd as the late role: %v", why(err))
	}
}
