// Package auth runs the real thriftd binary with PasswordAuthenticator and
// CassandraAuthorizer on the LevelDB store: roles made through the admin
// endpoint (thriftd-tool's commands), logins and permission checks on both
// Thrift APIs with Cassandra 2.1's exceptions and messages, the bound on
// failed logins, the audit log, and roles that survive a restart.
package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/admin"
	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

var thriftdBin string

// toolBin is thriftd-tool, built for the tests of its role commands.
var toolBin string

// TestMain builds thriftd and thriftd-tool without the race detector:
// under it, bcrypt takes seconds a hash, and each login and role here
// pays for one.
func TestMain(m *testing.M) {
	path, cleanup, err := testenv.Binary("thriftd-tool", false)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer cleanup()
	toolBin = path
	testenv.Main(m, false, &thriftdBin)
}

var ctx = context.Background()

// Passwords the test uses; none may reach a log.
const (
	alicePassword = "alice-Secret-1"
	bobPassword   = "bob-Secret-2"
	wrongPassword = "wrong-Secret-3"
)

func start(t *testing.T, auditLog string, extra ...string) (*testenv.Node, *admin.Client) {
	t.Helper()
	args := append([]string{"-api", "auto", "-authenticator", "PasswordAuthenticator",
		"-authorizer", "org.apache.cassandra.auth.CassandraAuthorizer", "-audit-log", auditLog}, extra...)
	n := testenv.NewNode(t, thriftdBin, testenv.Fixture("storage-conf-0.6-test.xml"), args...)
	n.Start()
	addr := testenv.LogValue(n.WaitLog(t, 5*time.Second, map[string]string{"msg": "admin endpoint is serving"})["addr"])
	return n, &admin.Client{Addr: addr}
}

func ptr[T any](v T) *T { return &v }

func change(t *testing.T, c *admin.Client, ch admin.RoleChange) {
	t.Helper()
	if _, err := c.ChangeRoles(ctx, ch); err != nil {
		t.Fatalf("%s %s: %v", ch.Statement, ch.Role, err)
	}
}

// why is an exception's class and message, "" for none.
func why(err error) string {
	var (
		ire   *cassandra19.InvalidRequestException
		authn *cassandra19.AuthenticationException
		ire6  *cassandra.InvalidRequestException
		auth6 *cassandra.AuthenticationException
	)
	switch {
	case err == nil:
		return ""
	case errors.As(err, &ire):
		return "InvalidRequestException: " + ire.Why
	case errors.As(err, &authn):
		return "AuthenticationException: " + authn.Why
	case errors.As(err, &ire6):
		return "InvalidRequestException: " + ire6.Why
	case errors.As(err, &auth6):
		return "AuthenticationException: " + auth6.Why
	}
	return err.Error()
}

func creds(user, password string) map[string]string {
	return map[string]string{"username": user, "password": password}
}

func TestPasswordsAndPermissions(t *testing.T) {
	audit := filepath.Join(t.TempDir(), "audit.log")
	n, adm := start(t, audit, "-max-failed-logins", "3")
	// alice reads Keyspace1; bob writes Keyspace1.Standard1 through the
	// role writers.
	change(t, adm, admin.RoleChange{Statement: "create_user", Role: "alice", Password: ptr(alicePassword)})
	change(t, adm, admin.RoleChange{Statement: "create_user", Role: "bob", Password: ptr(bobPassword)})
	change(t, adm, admin.RoleChange{Statement: "create_role", Role: "writers"})
	change(t, adm, admin.RoleChange{Statement: "grant", Permissions: []string{"SELECT"}, Resource: "KEYSPACE Keyspace1", Role: "alice"})
	change(t, adm, admin.RoleChange{Statement: "grant", Permissions: []string{"MODIFY"}, Resource: "TABLE Keyspace1.Standard1", Role: "writers"})
	change(t, adm, admin.RoleChange{Statement: "grant_role", Role: "writers", Grantee: "bob"})

	parent := &cassandra19.ColumnParent{ColumnFamily: "Standard1"}
	pred := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 10}}
	col := &cassandra19.Column{Name: []byte("c"), Value: []byte("v"), Timestamp: ptr(int64(1))}
	one := cassandra19.ConsistencyLevel_ONE
	insert := func(c *testenv.Client19) error { return c.Insert(ctx, []byte("k"), parent, col, one) }
	read := func(c *testenv.Client19) error { _, err := c.GetSlice(ctx, []byte("k"), parent, pred, one); return err }
	addKeyspace := func(c *testenv.Client19) error {
		_, err := c.SystemAddKeyspace(ctx, &cassandra19.KsDef{Name: "Fresh", StrategyClass: "SimpleStrategy",
			StrategyOptions: map[string]string{"replication_factor": "1"}, CfDefs: []*cassandra19.CfDef{}})
		return err
	}
	conn := func(user, password string) *testenv.Client19 {
		c := n.Client19(true)
		if user != "" {
			if err := c.Login(ctx, &cassandra19.AuthenticationRequest{Credentials: creds(user, password)}); err != nil {
				t.Fatalf("login %s: %v", user, err)
			}
		}
		if err := c.SetKeyspace(ctx, "Keyspace1"); err != nil {
			t.Fatal(err)
		}
		return c
	}
	anon, alice, bob, root := conn("", ""), conn("alice", alicePassword), conn("bob", bobPassword), conn("cassandra", "cassandra")
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"anonymous get_slice", read(anon), "InvalidRequestException: You have not logged in"},
		{"anonymous describe_keyspaces", func() error { _, err := anon.DescribeKeyspaces(ctx); return err }(), "InvalidRequestException: You have not logged in"},
		{"alice get_slice", read(alice), ""},
		{"alice insert", insert(alice), "InvalidRequestException: User alice has no MODIFY permission on <table Keyspace1.Standard1> or any of its parents"},
		{"bob insert", insert(bob), ""},
		{"bob get_slice", read(bob), "InvalidRequestException: User bob has no SELECT permission on <table Keyspace1.Standard1> or any of its parents"},
		{"bob truncate Standard2", bob.Truncate(ctx, "Standard2"), "InvalidRequestException: User bob has no MODIFY permission on <table Keyspace1.Standard2> or any of its parents"},
		{"alice system_add_keyspace", addKeyspace(alice), "InvalidRequestException: User alice has no CREATE permission on <all keyspaces> or any of its parents"},
		{"alice system_drop_column_family", func() error { _, err := alice.SystemDropColumnFamily(ctx, "Standard2"); return err }(), "InvalidRequestException: User alice has no DROP permission on <table Keyspace1.Standard2> or any of its parents"},
		{"cassandra insert", insert(root), ""},
		{"cassandra get_slice", read(root), ""},
		// 2.1 checks the login before it reads a prepared query, and once
		// it has parsed an executed one; thriftd then refuses the CQL it
		// does not serve.
		{"anonymous prepare_cql3_query", func() error {
			_, err := anon.PrepareCql3Query(ctx, []byte("SELECT * FROM Standard1"), cassandra19.Compression_NONE)
			return err
		}(), "InvalidRequestException: You have not logged in"},
		{"anonymous execute_cql3_query", func() error {
			_, err := anon.ExecuteCql3Query(ctx, []byte("SELECT * FROM Standard1"), cassandra19.Compression_NONE, one)
			return err
		}(), "InvalidRequestException: You have not logged in"},
		{"anonymous execute_cql_query", func() error {
			_, err := anon.ExecuteCqlQuery(ctx, []byte("SELECT * FROM Standard1"), cassandra19.Compression_NONE)
			return err
		}(), "InvalidRequestException: You have not logged in"},
		{"alice prepare_cql3_query", func() error {
			_, err := alice.PrepareCql3Query(ctx, []byte("SELECT * FROM Standard1"), cassandra19.Compression_NONE)
			return err
		}(), "InvalidRequestException: thriftd answers over Thrift only CQL 3 SELECTs of system.schema_keyspaces, system.schema_columnfamilies and system.schema_columns (to describe its schema); send any other CQL to a Cassandra node's native protocol port (9042 by default)"},
		{"unknown family first", func() error {
			_, err := bob.GetSlice(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "Nope"}, pred, one)
			return err
		}(), "InvalidRequestException: unconfigured columnfamily Nope"},
	} {
		if got := why(tc.err); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}

	// Logins refused, 19.x.
	c := n.Client19(true)
	for _, tc := range []struct {
		creds map[string]string
		want  string
	}{
		{creds("alice", wrongPassword), "AuthenticationException: Username and/or password are incorrect"},
		{creds("nobody", wrongPassword), "AuthenticationException: Username and/or password are incorrect"},
		{map[string]string{"password": "x"}, "AuthenticationException: Required key 'username' is missing"},
	} {
		if got := why(c.Login(ctx, &cassandra19.AuthenticationRequest{Credentials: tc.creds})); got != tc.want {
			t.Errorf("login %v: %q, want %q", tc.creds["username"], got, tc.want)
		}
	}
	// Three failures of alice from this host (-max-failed-logins 3): her
	// next login is refused though its password is right, on this
	// connection and on a fresh one; bob, who has not failed, logs in
	// from the same host, on the same connection too.
	for range 2 {
		c.Login(ctx, &cassandra19.AuthenticationRequest{Credentials: creds("alice", wrongPassword)})
	}
	tooMany := "AuthenticationException: Too many failed login attempts; try again later"
	if got := why(c.Login(ctx, &cassandra19.AuthenticationRequest{Credentials: creds("alice", alicePassword)})); got != tooMany {
		t.Errorf("login after 3 failures: %q, want %q", got, tooMany)
	}
	if got := why(n.Client19(true).Login(ctx, &cassandra19.AuthenticationRequest{Credentials: creds("alice", alicePassword)})); got != tooMany {
		t.Errorf("alice from the same address: %q, want %q", got, tooMany)
	}
	if err := c.Login(ctx, &cassandra19.AuthenticationRequest{Credentials: creds("bob", bobPassword)}); err != nil {
		t.Errorf("bob on the connection alice failed on: %v", why(err))
	}
	if err := n.Client19(true).Login(ctx, &cassandra19.AuthenticationRequest{Credentials: creds("bob", bobPassword)}); err != nil {
		t.Errorf("bob from alice's address: %v", why(err))
	}

	checkAudit(t, audit)
	noPasswords(t, n.Logs())
}

func noPasswords(t *testing.T, logs string) {
	t.Helper()
	for _, pw := range []string{alicePassword, bobPassword, wrongPassword} {
		if strings.Contains(logs, pw) {
			t.Fatalf("the server log holds a password:\n%s", logs)
		}
	}
}

// TestNoLockoutByDefault: thriftd's failed-login bound is off unless
// set (Cassandra has none), so a client that keeps failing, under its own
// name or another's, never keeps a user with the right password out.
func TestNoLockoutByDefault(t *testing.T) {
	n := testenv.NewNode(t, thriftdBin, testenv.Fixture("storage-conf-0.6-test.xml"),
		"-api", "auto", "-authenticator", "PasswordAuthenticator")
	n.Start()
	c := n.Client19(true)
	for range 12 {
		for _, u := range []string{"cassandra", "mallory"} {
			if got := why(c.Login(ctx, &cassandra19.AuthenticationRequest{Credentials: creds(u, wrongPassword)})); got != "AuthenticationException: Username and/or password are incorrect" {
				t.Fatalf("wrong password of %s: %q", u, got)
			}
		}
	}
	if err := c.Login(ctx, &cassandra19.AuthenticationRequest{Credentials: creds("cassandra", "cassandra")}); err != nil {
		t.Errorf("cassandra on the failing connection: %v", why(err))
	}
	if err := n.Client19(true).Login(ctx, &cassandra19.AuthenticationRequest{Credentials: creds("cassandra", "cassandra")}); err != nil {
		t.Errorf("cassandra on a fresh connection: %v", why(err))
	}
}

// The 0.6 API logs in through the same roles and checks SELECT and MODIFY
// per column family; roles made with the tool outlive a restart.
func TestOldAPIAndRestart(t *testing.T) {
	audit := filepath.Join(t.TempDir(), "audit.log")
	n, adm := start(t, audit)
	change(t, adm, admin.RoleChange{Statement: "create_user", Role: "alice", Password: ptr(alicePassword)})
	change(t, adm, admin.RoleChange{Statement: "grant", Permissions: []string{"SELECT"}, Resource: "Keyspace1.Standard1", Role: "alice"})
	roles, err := adm.Roles(ctx)
	if err != nil || len(roles) != 2 || roles[0].Name != "alice" || roles[1].Name != "cassandra" || !roles[1].Superuser {
		t.Fatalf("list-roles: %+v, %v", roles, err)
	}
	perms, err := adm.Permissions(ctx, "alice")
	if err != nil || len(perms) != 1 || perms[0].Resource != "data/Keyspace1/Standard1" || perms[0].Permission != "SELECT" {
		t.Fatalf("list-permissions alice: %+v, %v", perms, err)
	}

	path := &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}
	parent := &cassandra.ColumnParent{ColumnFamily: "Standard1"}
	pred := &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 10}}
	one := cassandra.ConsistencyLevel_ONE
	check := func(n *testenv.Node) {
		t.Helper()
		c := n.Client(false)
		if got, want := why(c.Insert(ctx, "Keyspace1", "k", path, []byte("v"), 1, one)), "InvalidRequestException: Login is required before any other API calls"; got != want {
			t.Errorf("0.6 insert before login: %q, want %q", got, want)
		}
		if got, want := why(c.Login(ctx, "Keyspace1", &cassandra.AuthenticationRequest{Credentials: creds("alice", wrongPassword)})), "AuthenticationException: Username and/or password are incorrect"; got != want {
			t.Errorf("0.6 login with a wrong password: %q, want %q", got, want)
		}
		if err := c.Login(ctx, "Keyspace1", &cassandra.AuthenticationRequest{Credentials: creds("alice", alicePassword)}); err != nil {
			t.Fatalf("0.6 login: %v", err)
		}
		if _, err := c.GetSlice(ctx, "Keyspace1", "k", parent, pred, one); err != nil {
			t.Errorf("0.6 get_slice: %v", err)
		}
		if got, want := why(c.Insert(ctx, "Keyspace1", "k", path, []byte("v"), 1, one)), "InvalidRequestException: User alice has no MODIFY permission on <table Keyspace1.Standard1> or any of its parents"; got != want {
			t.Errorf("0.6 insert: %q, want %q", got, want)
		}
		if got, want := why(func() error {
			_, err := c.GetSlice(ctx, "Keyspace1", "k", &cassandra.ColumnParent{ColumnFamily: "Standard2"}, pred, one)
			return err
		}()), "InvalidRequestException: User alice has no SELECT permission on <table Keyspace1.Standard2> or any of its parents"; got != want {
			t.Errorf("0.6 get_slice of Standard2: %q, want %q", got, want)
		}
	}
	check(n)
	n.Stop()
	again := testenv.NewNode(t, thriftdBin, testenv.Fixture("storage-conf-0.6-test.xml"), "-api", "auto",
		"-authenticator", "PasswordAuthenticator", "-authorizer", "CassandraAuthorizer")
	again.ServeStoreOf(n)
	again.Start()
	check(again)
	noPasswords(t, n.Logs()+again.Logs())
}

// checkAudit reads the audit log: a line per login and per refusal, with
// Cassandra 4's fields, and no password anywhere.
func checkAudit(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, pw := range []string{alicePassword, bobPassword, wrongPassword} {
		if strings.Contains(string(raw), pw) {
			t.Fatalf("the audit log holds a password:\n%s", raw)
		}
	}
	counts := map[string]int{}
	var refusal map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		counts[e["type"].(string)]++
		if e["type"] == "UNAUTHORIZED_ATTEMPT" && e["user"] == "alice" && e["scope"] == "Standard1" {
			refusal = e
		}
	}
	// 5 logins succeed (alice, cassandra, bob three times), 7 fail (5 bad
	// credentials, 2 of alice's over the bound).
	if counts["LOGIN_SUCCESS"] != 5 || counts["LOGIN_ERROR"] != 7 || counts["UNAUTHORIZED_ATTEMPT"] != 5 {
		t.Errorf("audit entries by type %v, want 5 LOGIN_SUCCESS, 7 LOGIN_ERROR, 5 UNAUTHORIZED_ATTEMPT\n%s", counts, raw)
	}
	if refusal == nil {
		t.Fatalf("no audit line for alice's insert\n%s", raw)
	}
	if refusal["keyspace"] != "Keyspace1" || refusal["source"] != "127.0.0.1" || refusal["category"] != "AUTH" ||
		!strings.HasPrefix(refusal["operation"].(string), "insert: User alice has no MODIFY permission") {
		t.Errorf("alice's refusal: %v", refusal)
	}
}
