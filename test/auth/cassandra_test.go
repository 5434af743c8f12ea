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

	cl, err := testenv.Dial19(n.Addr, true, 30*time.Second)
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
