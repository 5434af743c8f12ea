package auth

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/admin"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

// cfDef is a column family with the IDL's defaults, which 2.1 needs
// (caching "keys_only").
func cfDef(ks, name string) *cassandra19.CfDef {
	d := cassandra19.NewCfDef()
	d.Keyspace, d.Name = ks, name
	return d
}

// side is one server under test, with its superuser connection (whose
// keyspace is the test's) and the means to make its roles.
type side struct {
	name string
	addr string
	root *testenv.Client19
	// roles runs role statements, written for 2.1's CQL with the
	// keyspaces unquoted (CREATE USER, GRANT ... ON KEYSPACE ks,
	// CREATE ROLE, GRANT role TO role).
	roles roleMaker
	// counts of compared outcomes: equal, thriftd's documented
	// differences, the reference's own wording (3.11's), other.
	equal, documented, own, other int
}

// roleMaker makes roles and grants on one side.
type roleMaker interface {
	user(t *testing.T, name, password string, superuser bool)
	role(t *testing.T, name string)
	member(t *testing.T, role, of string)
	// grant gives perm on resource ("ALL KEYSPACES", "KEYSPACE ks",
	// "TABLE ks.cf").
	grant(t *testing.T, perm, resource, to string)
	drop(name string)
}

// cqlRoles makes roles with CQL over the reference's Thrift port.
type cqlRoles struct{ c *testenv.Client19 }

func (r cqlRoles) user(t *testing.T, name, password string, superuser bool) {
	su := "NOSUPERUSER"
	if superuser {
		su = "SUPERUSER"
	}
	cql(t, r.c, fmt.Sprintf("CREATE USER %s WITH PASSWORD '%s' %s", name, password, su))
}
func (r cqlRoles) role(t *testing.T, name string) { cql(t, r.c, "CREATE ROLE "+name) }
func (r cqlRoles) member(t *testing.T, role, of string) {
	cql(t, r.c, fmt.Sprintf("GRANT %s TO %s", of, role))
}
func (r cqlRoles) grant(t *testing.T, perm, resource, to string) {
	cql(t, r.c, fmt.Sprintf("GRANT %s ON %s TO %s", perm, resource, to))
}
func (r cqlRoles) drop(name string) {
	r.c.ExecuteCql3Query(ctx, []byte("DROP USER "+name), cassandra19.Compression_NONE, cassandra19.ConsistencyLevel_ONE)
	r.c.ExecuteCql3Query(ctx, []byte("DROP ROLE "+name), cassandra19.Compression_NONE, cassandra19.ConsistencyLevel_ONE)
}

// adminRoles makes roles on thriftd's LevelDB store through its admin
// endpoint (thriftd-tool's commands).
type adminRoles struct{ c *admin.Client }

func (r adminRoles) user(t *testing.T, name, password string, superuser bool) {
	change(t, r.c, admin.RoleChange{Statement: "create_user", Role: name, Password: ptr(password), Superuser: ptr(superuser)})
}
func (r adminRoles) role(t *testing.T, name string) {
	change(t, r.c, admin.RoleChange{Statement: "create_role", Role: name})
}
func (r adminRoles) member(t *testing.T, role, of string) {
	change(t, r.c, admin.RoleChange{Statement: "grant_role", Role: of, Grantee: role})
}
func (r adminRoles) grant(t *testing.T, perm, resource, to string) {
	change(t, r.c, admin.RoleChange{Statement: "grant", Permissions: []string{perm}, Resource: resource, Role: to})
}
func (adminRoles) drop(string) {}

// clusterRoles makes roles with CQL on the Cassandra cluster that a
// thriftd on the Cassandra store reads them from; a grant names the CQL
// keyspace that holds the Thrift keyspace.
type clusterRoles struct {
	s      *gocql.Session
	prefix string
}

func (r clusterRoles) exec(t *testing.T, q string) {
	t.Helper()
	if err := r.s.Query(q).Exec(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}
func (r clusterRoles) user(t *testing.T, name, password string, superuser bool) {
	r.exec(t, fmt.Sprintf("CREATE ROLE %s WITH PASSWORD = '%s' AND LOGIN = true AND SUPERUSER = %t", name, password, superuser))
}
func (r clusterRoles) role(t *testing.T, name string) { r.exec(t, "CREATE ROLE "+name) }
func (r clusterRoles) member(t *testing.T, role, of string) {
	r.exec(t, fmt.Sprintf("GRANT %s TO %s", of, role))
}
func (r clusterRoles) grant(t *testing.T, perm, resource, to string) {
	switch {
	case strings.HasPrefix(resource, "KEYSPACE "):
		resource = fmt.Sprintf(`KEYSPACE "%s%s"`, r.prefix, strings.TrimPrefix(resource, "KEYSPACE "))
	case strings.HasPrefix(resource, "TABLE "):
		ks, cf, _ := strings.Cut(strings.TrimPrefix(resource, "TABLE "), ".")
		resource = fmt.Sprintf(`TABLE "%s%s"."%s"`, r.prefix, ks, cf)
	}
	r.exec(t, fmt.Sprintf("GRANT %s ON %s TO %s", perm, resource, to))
}
func (r clusterRoles) drop(name string) { r.s.Query("DROP ROLE IF EXISTS " + name).Exec() }

func dialLogin(t *testing.T, addr, user, password string) (*testenv.Client19, error) {
	t.Helper()
	c, err := testenv.Dial19(addr, true, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if user == "" {
		return c, nil
	}
	return c, c.Login(ctx, &cassandra19.AuthenticationRequest{Credentials: creds(user, password)})
}

// superuser logs in as cassandra, waiting for a fresh Cassandra node to
// create that role (it does so about 10 s after it starts).
func superuser(t *testing.T, addr string) *testenv.Client19 {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		c, err := dialLogin(t, addr, "cassandra", "cassandra")
		if err == nil {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("logging in to %s as cassandra: %v", addr, err)
		}
		time.Sleep(time.Second)
	}
}

func cql(t *testing.T, c *testenv.Client19, q string) {
	t.Helper()
	if _, err := c.ExecuteCql3Query(ctx, []byte(q), cassandra19.Compression_NONE, cassandra19.ConsistencyLevel_ONE); err != nil {
		t.Fatalf("%s: %v", q, why(err))
	}
}

// cassandraStore starts thriftd on the Cassandra store, on the auth
// cluster, and returns it with the maker of its roles.
func cassandraStore(t *testing.T, sfx string) (*testenv.Node, clusterRoles) {
	points := testenv.CassandraCluster(t, "auth")
	prefix := "d" + sfx + "_"
	s := superSession(t, points, prefix)
	pwFile := filepath.Join(t.TempDir(), "cassandra.password")
	if err := os.WriteFile(pwFile, []byte("cassandra\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	n := testenv.NewNodeArgs(t, thriftdBin, "-config", testenv.Fixture("storage-conf-0.6-test.xml"),
		"-listen", "127.0.0.1:0", "-log-format", "json", "-log-level", "info", "-admin", "127.0.0.1:0", "-api", "auto",
		"-cassandra", points, "-cassandra-prefix", prefix, "-cassandra-username", "cassandra", "-cassandra-password-file", pwFile,
		"-authenticator", "PasswordAuthenticator", "-authorizer", "CassandraAuthorizer")
	n.Start()
	return n, clusterRoles{s: s, prefix: prefix}
}

// grantee is a user of the test and what it is granted.
type grantee struct {
	name      string // without the test's suffix; "" is no login
	superuser bool
	grants    [][2]string // permission, resource (ks stands for the test's keyspace)
	memberOf  string      // a role holding grants (roles only)
}
