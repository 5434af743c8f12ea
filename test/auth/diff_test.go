package auth

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/admin"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

// TestDiffAgainst21 makes the same 19.x calls, as users with different
// grants, against a real Cassandra 2.1.21 node with PasswordAuthenticator
// and CassandraAuthorizer (test/cassandra/reference start 2.1-auth) and
// against thriftd with the same roles, and compares each call's outcome:
// the exception's class and message, or success.
func TestDiffAgainst21(t *testing.T) {
	ref := testenv.Reference(t, "2.1-auth", "random")
	diff(t, ref, nil)
}

// TestDiffAgainst311 is TestDiffAgainst21 against Cassandra 3.11.19 (the
// 20.x API, which 3.11 serves beside CQL). thriftd answers as 2.1 does;
// where 3.11 words a refusal otherwise, known311 says how, and the test
// checks that 3.11 still does.
func TestDiffAgainst311(t *testing.T) {
	ref := testenv.Reference(t, "3.11-auth", "random")
	diff(t, ref, known311)
}

// known311 rewrites thriftd's (2.1's) outcome into 3.11's, by call label.
var known311 = func(label, thr string) string {
	switch {
	case strings.HasPrefix(label, "login wrong password") || strings.HasPrefix(label, "login unknown user"):
		// 3.11 names the user (PasswordAuthenticator.authenticate).
		user := label[strings.LastIndexByte(label, ' ')+1:]
		return "AuthenticationException: Provided username " + user + " and/or password are incorrect"
	case strings.HasPrefix(label, "login without password "):
		// 3.11 names the user here too.
		user := label[strings.LastIndexByte(label, ' ')+1:]
		return thr + " for provided username " + user
	case strings.HasPrefix(label, "get unknown family"):
		// 3.0 renamed column families tables in its messages.
		return strings.Replace(thr, "unconfigured columnfamily", "unconfigured table", 1)
	}
	return thr
}

// cfDef is a column family with the IDL's defaults, which 2.1 needs
// (caching "keys_only").
func cfDef(ks, name string) *cassandra19.CfDef {
	d := cassandra19.NewCfDef()
	d.Keyspace, d.Name = ks, name
	return d
}

// side is one server under test, with its superuser connection.
type side struct {
	name string
	addr string
	root *testenv.Client19
}

func dialLogin(t *testing.T, addr, user, password string) (*testenv.Client19, error) {
	t.Helper()
	c, err := testenv.Dial19(addr, true, 30*time.Second)
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

func diff(t *testing.T, refAddr string, known func(label, thr string) string) {
	var b [4]byte
	rand.Read(b[:])
	sfx := hex.EncodeToString(b[:])
	ks, reader, writer, other := "authdiff_"+sfx, "reader_"+sfx, "writer_"+sfx, "other_"+sfx
	const password = "pw-" + "diff"

	n, adm := start(t, t.TempDir()+"/audit.log", "-max-failed-logins", "0")
	sides := []*side{{name: "reference", addr: refAddr}, {name: "thriftd", addr: n.Addr}}
	for _, s := range sides {
		s.root = superuser(t, s.addr)
	}
	// The reference's keyspace is made with CQL (2.1 fails on the Go
	// client's CfDef), thriftd's with system_add_keyspace: both hold two
	// BytesType families.
	ref := sides[0].root
	cql(t, ref, fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", ks))
	for _, cf := range []string{"cf", "cf2"} {
		cql(t, ref, fmt.Sprintf("CREATE TABLE %s.%s (key blob, column1 blob, value blob, PRIMARY KEY (key, column1)) WITH COMPACT STORAGE", ks, cf))
	}
	if _, err := sides[1].root.SystemAddKeyspace(ctx, &cassandra19.KsDef{Name: ks, StrategyClass: "org.apache.cassandra.locator.SimpleStrategy",
		StrategyOptions: map[string]string{"replication_factor": "1"},
		CfDefs:          []*cassandra19.CfDef{cfDef(ks, "cf"), cfDef(ks, "cf2")}}); err != nil {
		t.Fatalf("thriftd: system_add_keyspace: %v", why(err))
	}
	// The reference's roles are made with CQL, thriftd's with its tool's
	// commands: reader may SELECT the keyspace, writer MODIFY its table
	// cf, other nothing.
	for _, u := range []string{reader, writer, other} {
		cql(t, ref, fmt.Sprintf("CREATE USER %s WITH PASSWORD '%s' NOSUPERUSER", u, password))
		change(t, adm, admin.RoleChange{Statement: "create_user", Role: u, Password: ptr(password)})
	}
	cql(t, ref, fmt.Sprintf("GRANT SELECT ON KEYSPACE %s TO %s", ks, reader))
	change(t, adm, admin.RoleChange{Statement: "grant", Permissions: []string{"SELECT"}, Resource: "KEYSPACE " + ks, Role: reader})
	cql(t, ref, fmt.Sprintf("GRANT MODIFY ON %s.cf TO %s", ks, writer))
	change(t, adm, admin.RoleChange{Statement: "grant", Permissions: []string{"MODIFY"}, Resource: ks + ".cf", Role: writer})
	t.Cleanup(func() {
		for _, u := range []string{reader, writer, other} {
			ref.ExecuteCql3Query(ctx, []byte("DROP USER "+u), cassandra19.Compression_NONE, cassandra19.ConsistencyLevel_ONE)
		}
		ref.SystemDropKeyspace(ctx, ks)
	})

	type call struct {
		label string
		run   func(c *testenv.Client19) error
	}
	parent := &cassandra19.ColumnParent{ColumnFamily: "cf"}
	pred := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 10}}
	one := cassandra19.ConsistencyLevel_ONE
	col := &cassandra19.Column{Name: []byte("c"), Value: []byte("v"), Timestamp: ptr(int64(1))}
	calls := []call{
		{"get", func(c *testenv.Client19) error {
			_, err := c.Get(ctx, []byte("k"), &cassandra19.ColumnPath{ColumnFamily: "cf", Column: []byte("nothing")}, one)
			return err
		}},
		{"get_slice", func(c *testenv.Client19) error { _, err := c.GetSlice(ctx, []byte("k"), parent, pred, one); return err }},
		{"get_slice cf2", func(c *testenv.Client19) error {
			_, err := c.GetSlice(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "cf2"}, pred, one)
			return err
		}},
		{"get_count", func(c *testenv.Client19) error { _, err := c.GetCount(ctx, []byte("k"), parent, pred, one); return err }},
		{"multiget_slice", func(c *testenv.Client19) error {
			_, err := c.MultigetSlice(ctx, [][]byte{[]byte("k")}, parent, pred, one)
			return err
		}},
		{"get_range_slices", func(c *testenv.Client19) error {
			_, err := c.GetRangeSlices(ctx, parent, pred, &cassandra19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: 10}, one)
			return err
		}},
		{"insert", func(c *testenv.Client19) error { return c.Insert(ctx, []byte("k"), parent, col, one) }},
		{"insert cf2", func(c *testenv.Client19) error {
			return c.Insert(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "cf2"}, col, one)
		}},
		{"remove", func(c *testenv.Client19) error {
			return c.Remove(ctx, []byte("k"), &cassandra19.ColumnPath{ColumnFamily: "cf", Column: []byte("c")}, 2, one)
		}},
		{"batch_mutate", func(c *testenv.Client19) error {
			m := &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: col}}
			return c.BatchMutate(ctx, map[string]map[string][]*cassandra19.Mutation{"k": {"cf": {m}}}, one)
		}},
		{"get unknown family", func(c *testenv.Client19) error {
			_, err := c.GetSlice(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "nope"}, pred, one)
			return err
		}},
		{"describe_keyspace", func(c *testenv.Client19) error { _, err := c.DescribeKeyspace(ctx, ks); return err }},
		{"system_add_keyspace", func(c *testenv.Client19) error {
			_, err := c.SystemAddKeyspace(ctx, &cassandra19.KsDef{Name: ks + "_x", StrategyClass: "SimpleStrategy",
				StrategyOptions: map[string]string{"replication_factor": "1"}, CfDefs: []*cassandra19.CfDef{}})
			return err
		}},
		{"system_add_column_family", func(c *testenv.Client19) error {
			_, err := c.SystemAddColumnFamily(ctx, cfDef(ks, "cf3"))
			return err
		}},
		{"system_drop_column_family", func(c *testenv.Client19) error { _, err := c.SystemDropColumnFamily(ctx, "cf2"); return err }},
		{"system_drop_keyspace", func(c *testenv.Client19) error { _, err := c.SystemDropKeyspace(ctx, ks); return err }},
		{"truncate", func(c *testenv.Client19) error { return c.Truncate(ctx, "cf2") }},
	}
	outcome := func(err error) string {
		if w := why(err); w != "" {
			return w
		}
		var nf *cassandra19.NotFoundException
		if errors.As(err, &nf) {
			return "NotFoundException"
		}
		return "ok"
	}
	var compared, refusals int
	defer func() { t.Logf("compared %d outcomes with the reference's, %d of them refusals", compared, refusals) }()
	compare := func(label string, ref, thr string) {
		t.Helper()
		compared++
		if ref != "ok" && ref != "NotFoundException" {
			refusals++
		}
		if testing.Verbose() {
			t.Logf("%s: %s", label, ref)
		}
		want := ref
		if known != nil {
			if k := known(label, thr); k != thr {
				if ref != k {
					t.Errorf("%s: the reference answered %q, not the known %q", label, ref, k)
				}
				return
			}
		}
		if thr != want {
			t.Errorf("%s:\n  reference %s\n  thriftd   %s", label, ref, thr)
		}
	}
	// Refused logins.
	for _, tc := range []struct {
		label string
		creds map[string]string
	}{
		{"login wrong password " + reader, creds(reader, "wrong")},
		{"login unknown user nobody_" + sfx, creds("nobody_"+sfx, "wrong")},
		{"login without username", map[string]string{"password": "x"}},
		{"login without password " + reader, map[string]string{"username": reader}},
	} {
		var got [2]string
		for i, s := range sides {
			c, _ := dialLogin(t, s.addr, "", "")
			got[i] = outcome(c.Login(ctx, &cassandra19.AuthenticationRequest{Credentials: tc.creds}))
		}
		compare(tc.label, got[0], got[1])
	}
	// Every call, as each user. The superuser's changes (drops) come last.
	for _, user := range []string{"", other, reader, writer} {
		var conns [2]*testenv.Client19
		for i, s := range sides {
			c, err := dialLogin(t, s.addr, user, password)
			if err != nil {
				t.Fatalf("%s: login %s: %v", s.name, user, why(err))
			}
			if err := c.SetKeyspace(ctx, ks); err != nil {
				t.Fatalf("%s: set_keyspace as %q: %v", s.name, user, why(err))
			}
			conns[i] = c
		}
		for _, cl := range calls {
			label := fmt.Sprintf("%s as %q", cl.label, strings.TrimSuffix(user, "_"+sfx))
			compare(label, outcome(cl.run(conns[0])), outcome(cl.run(conns[1])))
		}
	}
}
