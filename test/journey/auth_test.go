package journey

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine/cqlstore"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testcerts"
	"github.com/thriftd/thriftd/internal/testenv"
)

// access is how the harness reaches a Thrift server: over TLS when tls is
// set, logged in when user is.
type access struct {
	tls            *tls.Config
	user, password string
}

// dial connects (framed) and logs in.
func (a access) dial(addr string, timeout time.Duration) (*testenv.Client19, error) {
	c, err := testenv.Dial19TLS(addr, a.tls, true, timeout)
	if err != nil {
		return nil, err
	}
	if a.user != "" {
		if err := c.Login(context.Background(), &cassandra19.AuthenticationRequest{
			Credentials: map[string]string{"username": a.user, "password": a.password}}); err != nil {
			c.Close()
			return nil, fmt.Errorf("login as %s: %s", a.user, why(err))
		}
	}
	return c, nil
}

// dialKeyspace is dial, then set_keyspace to the journey's keyspace.
func (a access) dialKeyspace(addr string, timeout time.Duration) (*testenv.Client19, error) {
	c, err := a.dial(addr, timeout)
	if err != nil {
		return nil, err
	}
	if err := c.SetKeyspace(context.Background(), ks); err != nil {
		c.Close()
		return nil, fmt.Errorf("set_keyspace: %s", why(err))
	}
	return c, nil
}

// connect opens a CQL session, waiting for a fresh node with
// PasswordAuthenticator to make its superuser (about 10 s after it
// serves).
func connect(t *testing.T, cl cqlstore.Cluster) *gocql.Session {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		s, err := cl.Connect()
		if err == nil {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("CQL session to %v: %v", cl.Hosts, err)
		}
		time.Sleep(time.Second)
	}
}

// why is an exception's class and message.
func why(err error) string {
	var (
		ire   *cassandra19.InvalidRequestException
		authn *cassandra19.AuthenticationException
	)
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ire):
		return "InvalidRequestException: " + ire.Why
	case errors.As(err, &authn):
		return "AuthenticationException: " + authn.Why
	}
	return err.Error()
}

// The roles of the secured journey, made with CQL on 3.11 before the
// drop: the application's (reads and writes the keyspace), a read-only
// one, and the one thriftd logs in to the node with.
const (
	writerRole  = "journey_writer"
	readerRole  = "journey_reader"
	thriftdRole = "journey_thriftd"

	writerPassword  = "w-Secret-1"
	readerPassword  = "r-Secret-2"
	thriftdPassword = "t-Secret-3"

	// validity is thriftd's permissions (and roles) cache validity, the
	// default of auth.permissions_validity_in_ms: a grant or revoke made
	// with CQL applies within it.
	validity = 2 * time.Second
	// slack is what a busy machine adds to the validity: the CQL write,
	// the read of the grants, the polling.
	slack = 3 * time.Second
)

// security is the secured journey's roles, certificates and figures.
type security struct {
	certs       *testcerts.Set
	dir         string
	app, reader access
	stages      []authFigure
}

// authFigure is what one stage's checks saw.
type authFigure struct {
	stage                    string
	logins, allowed, refused int
	unexpected               int
	grant, revoke            time.Duration
}

// newSecurity makes the roles with CQL (as the superuser) and the
// certificates of thriftd's TLS port.
func newSecurity(t *testing.T, s *gocql.Session) *security {
	t.Helper()
	for _, q := range []string{
		fmt.Sprintf("CREATE ROLE %s WITH PASSWORD = '%s' AND LOGIN = true", writerRole, writerPassword),
		fmt.Sprintf("CREATE ROLE %s WITH PASSWORD = '%s' AND LOGIN = true", readerRole, readerPassword),
		fmt.Sprintf("CREATE ROLE %s WITH PASSWORD = '%s' AND LOGIN = true", thriftdRole, thriftdPassword),
		fmt.Sprintf("GRANT SELECT ON KEYSPACE %s TO %s", ks, writerRole),
		fmt.Sprintf("GRANT MODIFY ON KEYSPACE %s TO %s", ks, writerRole),
		fmt.Sprintf("GRANT SELECT ON KEYSPACE %s TO %s", ks, readerRole),
		// thriftd reads system_auth's roles and grants (3.11 wants a
		// grant on system_auth itself: SELECT ON ALL KEYSPACES does not
		// cover it), reads and writes the adopted keyspace, and makes its
		// catalog keyspace under its prefix (its creator holds every
		// permission on it).
		fmt.Sprintf("GRANT SELECT ON KEYSPACE system_auth TO %s", thriftdRole),
		fmt.Sprintf("GRANT SELECT ON KEYSPACE %s TO %s", ks, thriftdRole),
		fmt.Sprintf("GRANT MODIFY ON KEYSPACE %s TO %s", ks, thriftdRole),
		fmt.Sprintf("GRANT CREATE ON ALL KEYSPACES TO %s", thriftdRole),
	} {
		if err := s.Query(q).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	certs, err := testcerts.New("thriftd journey")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := certs.Write(dir); err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{RootCAs: certs.Pool(), ServerName: "localhost"}
	t.Logf("journey: roles %s (SELECT, MODIFY on %s), %s (SELECT), %s (thriftd's) made with CQL on 3.11.19",
		writerRole, ks, readerRole, thriftdRole)
	return &security{
		certs:  certs,
		dir:    dir,
		app:    access{tls: cfg, user: writerRole, password: writerPassword},
		reader: access{tls: cfg, user: readerRole, password: readerPassword},
	}
}

// thriftdArgs are the flags of a secured thriftd: the node's
// authenticator and authorizer, TLS alone on its Thrift port, logged in to
// the node as its role.
func (sec *security) thriftdArgs(t *testing.T) []string {
	t.Helper()
	pw := filepath.Join(sec.dir, "cassandra.password")
	if err := os.WriteFile(pw, []byte(thriftdPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"-authenticator", "PasswordAuthenticator", "-authorizer", "CassandraAuthorizer",
		"-cassandra-username", thriftdRole, "-cassandra-password-file", pw,
		"-tls", "-tls-keystore", sec.certs.ServerPEM}
}

func noModify(role string) string {
	return fmt.Sprintf("InvalidRequestException: User %s has no MODIFY permission on <table %s.Writes> or any of its parents", role, ks)
}

// check runs one stage's checks through thriftd at addr: the application
// role logs in over TLS, reads and writes; the read-only role reads and is
// refused a write with 2.1's message; a wrong password and a plain-text
// client are refused, and the node refuses a wrong password over CQL; a
// grant and a revoke made with CQL apply within the validity.
func (sec *security) check(t *testing.T, stage, addr string, cl cqlstore.Cluster) {
	t.Helper()
	ctx := context.Background()
	f := authFigure{stage: stage}
	defer func() { sec.stages = append(sec.stages, f) }()
	bad := func(format string, args ...any) {
		t.Helper()
		f.unexpected++
		t.Errorf("%s: "+format, append([]any{stage}, args...)...)
	}
	one := cassandra19.ConsistencyLevel_ONE
	parent := &cassandra19.ColumnParent{ColumnFamily: "Writes"}
	path := &cassandra19.ColumnPath{ColumnFamily: "Writes", Column: []byte("seq")}
	key := []byte("auth-" + strings.ReplaceAll(stage, " ", "-"))
	insert := func(c *testenv.Client19) error {
		ts := time.Now().UnixMicro()
		return c.Insert(ctx, key, parent, &cassandra19.Column{Name: []byte("seq"), Value: key, Timestamp: &ts}, one)
	}

	// The application role.
	app, err := sec.app.dialKeyspace(addr, 30*time.Second)
	if err != nil {
		bad("the application role over TLS: %v", err)
		return
	}
	defer app.Close()
	f.logins++
	if err := insert(app); err != nil {
		bad("the application role's insert: %s", why(err))
	} else {
		f.allowed++
	}
	if got, err := app.Get(ctx, key, path, one); err != nil || string(got.Column.Value) != string(key) {
		bad("the application role's read back: %v, %s", got, why(err))
	} else {
		f.allowed++
	}

	// The read-only role.
	ro, err := sec.reader.dialKeyspace(addr, 30*time.Second)
	if err != nil {
		bad("the read-only role over TLS: %v", err)
		return
	}
	defer ro.Close()
	f.logins++
	if got, err := ro.Get(ctx, key, path, one); err != nil || string(got.Column.Value) != string(key) {
		bad("the read-only role's read: %v, %s", got, why(err))
	} else {
		f.allowed++
	}
	if got := why(insert(ro)); got != noModify(readerRole) {
		bad("the read-only role's insert: %q, want %q", got, noModify(readerRole))
	} else {
		f.refused++
	}

	// A wrong password.
	wrong := sec.app
	wrong.password += "x"
	const incorrect = "AuthenticationException: Username and/or password are incorrect"
	if c, err := wrong.dial(addr, 30*time.Second); err == nil {
		c.Close()
		bad("a wrong password logged in")
	} else if !strings.HasSuffix(err.Error(), incorrect) {
		bad("a wrong password: %v, want %q", err, incorrect)
	} else {
		f.refused++
	}

	// A plain-text client on the TLS port.
	if c, err := testenv.Dial19(addr, true, 5*time.Second); err == nil {
		if v, err := c.DescribeVersion(ctx); err == nil {
			bad("a plain-text client was served on the TLS port: describe_version %q", v)
		} else {
			f.refused++
		}
		c.Close()
	} else {
		f.refused++
	}

	// The node itself still runs PasswordAuthenticator at this version.
	wrongCQL := cl
	wrongCQL.Password += "x"
	if s, err := wrongCQL.Connect(); err == nil {
		s.Close()
		bad("the node took a wrong password over CQL: its authenticator is off")
	} else {
		f.refused++
	}

	// A grant, then a revoke, made with CQL while thriftd serves (the node
	// refuses GRANT unless its CassandraAuthorizer is on).
	s := connect(t, cl)
	defer s.Close()
	grant := fmt.Sprintf(`GRANT MODIFY ON TABLE %s."Writes" TO %s`, ks, readerRole)
	revoke := fmt.Sprintf(`REVOKE MODIFY ON TABLE %s."Writes" FROM %s`, ks, readerRole)
	if err := s.Query(grant).Exec(); err != nil {
		t.Fatalf("%s: %s: %v", stage, grant, err)
	}
	t0 := time.Now()
	for {
		err := insert(ro)
		if err == nil {
			f.grant = time.Since(t0)
			f.allowed++
			break
		}
		if why(err) != noModify(readerRole) || time.Since(t0) > 30*time.Second {
			bad("the read-only role's insert after %s: %s", grant, why(err))
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := s.Query(revoke).Exec(); err != nil {
		t.Fatalf("%s: %s: %v", stage, revoke, err)
	}
	t0 = time.Now()
	for {
		err := insert(ro)
		if why(err) == noModify(readerRole) {
			f.revoke = time.Since(t0)
			f.refused++
			break
		}
		if err != nil || time.Since(t0) > 30*time.Second {
			bad("the read-only role's insert after %s: %q", revoke, why(err))
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if f.grant > validity+slack || f.revoke > validity+slack {
		bad("the grant took %v and the revoke %v to apply through thriftd, over the %v validity (and %v of slack)",
			f.grant.Round(time.Millisecond), f.revoke.Round(time.Millisecond), validity, slack)
	}
	t.Logf("journey: %s: secured: %d logins, %d calls allowed and %d refused as expected, %d unexpected; a CQL grant applied in %v, a revoke in %v",
		stage, f.logins, f.allowed, f.refused, f.unexpected, f.grant.Round(time.Millisecond), f.revoke.Round(time.Millisecond))
}

// report logs the secured figures of every stage.
func (sec *security) report(t *testing.T) {
	for _, f := range sec.stages {
		t.Logf("journey: %-20s secured: %d logins, %d allowed, %d refused as expected, %d unexpected, grant %v, revoke %v",
			f.stage, f.logins, f.allowed, f.refused, f.unexpected, f.grant.Round(time.Millisecond), f.revoke.Round(time.Millisecond))
	}
}
