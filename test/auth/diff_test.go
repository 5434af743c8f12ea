package auth

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

// TestDiffAgainst21 makes every call of the 19.x API, as users with
// different grants, against a real Cassandra 2.1.21 node with
// PasswordAuthenticator and CassandraAuthorizer (test/cassandra/reference
// start 2.1-auth) and against thriftd with the same roles, on the LevelDB
// store and on the Cassandra store (the auth cluster), and compares each
// call's outcome: the exception's class and message, or success.
func TestDiffAgainst21(t *testing.T) {
	ref := testenv.Reference(t, "2.1-auth", "random")
	diff(t, ref, false)
}

// TestDiffAgainst311 is TestDiffAgainst21 against Cassandra 3.11.19 (the
// 20.x API, which 3.11 serves beside CQL), with a user who holds its
// permissions through a role granted to it (GRANT role TO role, which 2.1
// has not). thriftd answers as 2.1 does; where 3.11 words an answer
// otherwise, ref311 says how, and the test checks that 3.11 still does.
func TestDiffAgainst311(t *testing.T) {
	ref := testenv.Reference(t, "3.11-auth", "random")
	diff(t, ref, true)
}

// errCQL begins thriftd's documented answer to CQL it does not serve
// (docs/api19.md, CQL over Thrift); the rest names where to send it.
const errCQL = "InvalidRequestException: thriftd answers over Thrift only CQL 3 SELECTs of system.schema_keyspaces"

// documented reports thriftd's documented difference from 2.1 and 3.11:
// it refuses the CQL it does not serve (a statement other than a SELECT
// of the schema tables, and every prepared one) with errCQL, once the
// checks that come first in Cassandra (the CQL version, the login) have
// passed. 2.1 looks a prepared statement up before it checks the login,
// so there the refusal comes first too.
func documented(label, thr string) bool {
	if !strings.HasPrefix(thr, errCQL) {
		return false
	}
	for _, p := range []string{"execute_cql3_query ks.cf", "prepare_cql3_query", "execute_cql_query", "prepare_cql_query"} {
		if strings.HasPrefix(label, p+" ") {
			return !strings.HasSuffix(label, ` as ""`)
		}
	}
	return strings.HasPrefix(label, "execute_prepared_cql3_query ") || strings.HasPrefix(label, "execute_prepared_cql_query ")
}

// ref311 rewrites thriftd's (2.1's) outcome into 3.11's, by call label,
// where 3.11 answers otherwise; "" where it answers as 2.1.
func ref311(label, thr string) string {
	switch {
	case strings.HasPrefix(label, "login wrong password") || strings.HasPrefix(label, "login unknown user"):
		// 3.11 names the user (PasswordAuthenticator.authenticate).
		user := label[strings.LastIndexByte(label, ' ')+1:]
		return "AuthenticationException: Provided username " + user + " and/or password are incorrect"
	case strings.HasPrefix(label, "login without password "):
		// 3.11 names the user here too.
		user := label[strings.LastIndexByte(label, ' ')+1:]
		return thr + " for provided username " + user
	case strings.HasPrefix(label, "execute_cql3_query schema "):
		// 3.0 moved the schema tables to system_schema; 3.11 validates
		// the table before the login.
		return "InvalidRequestException: unconfigured table schema_keyspaces"
	case strings.HasPrefix(label, "execute_cql_query ") || strings.HasPrefix(label, "prepare_cql_query ") ||
		strings.HasPrefix(label, "execute_prepared_cql_query "):
		return "InvalidRequestException: CQL2 has been removed in Cassandra 3.0. Please use CQL3 instead"
	case strings.Contains(thr, "unconfigured columnfamily"):
		// 3.0 renamed column families tables in its messages.
		return strings.Replace(thr, "unconfigured columnfamily", "unconfigured table", 1)
	}
	return ""
}

func diff(t *testing.T, refAddr string, roles bool) {
	var b [4]byte
	rand.Read(b[:])
	sfx := hex.EncodeToString(b[:])
	ks := "authdiff_" + sfx
	ksDrop, ksNew := ks+"_d", ks+"_x"
	const password = "pw-" + "diff"

	// thriftd runs with its defaults: no failed-login bound, as 2.1.
	n, adm := start(t, t.TempDir()+"/audit.log")
	cn, cr := cassandraStore(t, sfx)
	sides := []*side{{name: "reference", addr: refAddr}, {name: "leveldb", addr: n.Addr, roles: adminRoles{adm}},
		{name: "cassandra", addr: cn.Addr, roles: cr}}
	for _, s := range sides {
		s.root = superuser(t, s.addr)
	}
	ref := sides[0].root
	sides[0].roles = cqlRoles{ref}
	// The reference's keyspaces are made with CQL (2.1 fails on the Go
	// client's CfDef), thriftd's with system_add_keyspace: each holds two
	// BytesType families and a counter family.
	families := []string{"cf", "cf2"}
	refKeyspace := func(name string) {
		cql(t, ref, fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", name))
	}
	refFamily := func(ks, cf string) {
		cql(t, ref, fmt.Sprintf("CREATE TABLE %s.%s (key blob, column1 blob, value blob, PRIMARY KEY (key, column1)) WITH COMPACT STORAGE", ks, cf))
	}
	counterDef := func(ks string) *cassandra19.CfDef {
		d := cfDef(ks, "cnt")
		d.DefaultValidationClass = ptr("CounterColumnType")
		return d
	}
	ksDef := func(name string, cfs ...*cassandra19.CfDef) *cassandra19.KsDef {
		return &cassandra19.KsDef{Name: name, StrategyClass: "org.apache.cassandra.locator.SimpleStrategy",
			StrategyOptions: map[string]string{"replication_factor": "1"}, CfDefs: cfs}
	}
	refKeyspace(ks)
	for _, cf := range families {
		refFamily(ks, cf)
	}
	cql(t, ref, fmt.Sprintf("CREATE TABLE %s.cnt (key blob, column1 blob, value counter, PRIMARY KEY (key, column1)) WITH COMPACT STORAGE", ks))
	refKeyspace(ksDrop)
	t.Cleanup(func() {
		for _, k := range []string{ks, ksDrop, ksNew} {
			ref.SystemDropKeyspace(ctx, k)
		}
	})
	for _, s := range sides[1:] {
		if _, err := s.root.SystemAddKeyspace(ctx, ksDef(ks, cfDef(ks, "cf"), cfDef(ks, "cf2"), counterDef(ks))); err != nil {
			t.Fatalf("%s: system_add_keyspace: %v", s.name, why(err))
		}
		if _, err := s.root.SystemAddKeyspace(ctx, ksDef(ksDrop)); err != nil {
			t.Fatalf("%s: system_add_keyspace: %v", s.name, why(err))
		}
	}
	for _, s := range sides {
		if err := s.root.SetKeyspace(ctx, ks); err != nil {
			t.Fatalf("%s: set_keyspace: %v", s.name, why(err))
		}
	}

	// The users: none; no grant; SELECT on the keyspace, on a table, on
	// all keyspaces; MODIFY on a table; ALL on the keyspace, on all
	// keyspaces; a superuser; on 3.11, ALL on the keyspace through a role.
	users := []grantee{
		{name: ""},
		{name: "other"},
		{name: "reader", grants: [][2]string{{"SELECT", "KEYSPACE ks"}}},
		{name: "tablesel", grants: [][2]string{{"SELECT", "TABLE ks.cf"}}},
		{name: "datasel", grants: [][2]string{{"SELECT", "ALL KEYSPACES"}}},
		{name: "writer", grants: [][2]string{{"MODIFY", "TABLE ks.cf"}}},
		{name: "ksall", grants: [][2]string{{"ALL", "KEYSPACE ks"}}},
		{name: "dataall", grants: [][2]string{{"ALL", "ALL KEYSPACES"}}},
		{name: "super", superuser: true},
	}
	if roles {
		users = append(users, grantee{name: "member", memberOf: "group"})
	}
	resource := func(r string) string {
		r = strings.Replace(r, "KEYSPACE ks", "KEYSPACE "+ks, 1)
		return strings.Replace(r, "TABLE ks.", "TABLE "+ks+".", 1)
	}
	for _, s := range sides {
		s := s
		if roles {
			s.roles.role(t, "group_"+sfx)
			s.roles.grant(t, "ALL", resource("KEYSPACE ks"), "group_"+sfx)
			t.Cleanup(func() { s.roles.drop("group_" + sfx) })
		}
		for _, u := range users[1:] {
			name := u.name + "_" + sfx
			s.roles.user(t, name, password, u.superuser)
			t.Cleanup(func() { s.roles.drop(name) })
			for _, g := range u.grants {
				s.roles.grant(t, g[0], resource(g[1]), name)
			}
			if u.memberOf != "" {
				s.roles.member(t, name, u.memberOf+"_"+sfx)
			}
		}
	}

	type call struct {
		label string
		run   func(c *testenv.Client19) error
		// restore undoes a successful call's change on a side, through
		// its superuser connection.
		restore func(s *side)
	}
	parent := &cassandra19.ColumnParent{ColumnFamily: "cf"}
	pred := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 10}}
	one := cassandra19.ConsistencyLevel_ONE
	col := &cassandra19.Column{Name: []byte("c"), Value: []byte("v"), Timestamp: ptr(int64(1))}
	keys := &cassandra19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: 10}
	mutation := func(cf string) map[string]map[string][]*cassandra19.Mutation {
		m := &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: col}}
		return map[string]map[string][]*cassandra19.Mutation{"k": {cf: {m}}}
	}
	cql3 := func(q string) func(c *testenv.Client19) error {
		return func(c *testenv.Client19) error {
			_, err := c.ExecuteCql3Query(ctx, []byte(q), cassandra19.Compression_NONE, one)
			return err
		}
	}
	ignore := func(string, error) {}
	calls := []call{
		{label: "set_keyspace", run: func(c *testenv.Client19) error { return c.SetKeyspace(ctx, ks) }},
		// A client that has not logged in may name a keyspace that does
		// not exist (2.1 lets it, for client libraries that call
		// set_keyspace before login); the connection is set back after.
		{label: "set_keyspace unknown", run: func(c *testenv.Client19) error {
			err := c.SetKeyspace(ctx, ks+"_nope")
			if err := c.SetKeyspace(ctx, ks); err != nil {
				return fmt.Errorf("setting the keyspace back: %w", err)
			}
			return err
		}},
		// 2.1 has system_auth under PasswordAuthenticator.
		{label: "set_keyspace system_auth", run: func(c *testenv.Client19) error {
			err := c.SetKeyspace(ctx, "system_auth")
			if err := c.SetKeyspace(ctx, ks); err != nil {
				return fmt.Errorf("setting the keyspace back: %w", err)
			}
			return err
		}},
		{label: "get", run: func(c *testenv.Client19) error {
			_, err := c.Get(ctx, []byte("k"), &cassandra19.ColumnPath{ColumnFamily: "cf", Column: []byte("nothing")}, one)
			return err
		}},
		{label: "get_slice", run: func(c *testenv.Client19) error { _, err := c.GetSlice(ctx, []byte("k"), parent, pred, one); return err }},
		{label: "get_slice cf2", run: func(c *testenv.Client19) error {
			_, err := c.GetSlice(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "cf2"}, pred, one)
			return err
		}},
		{label: "get_count", run: func(c *testenv.Client19) error { _, err := c.GetCount(ctx, []byte("k"), parent, pred, one); return err }},
		{label: "multiget_slice", run: func(c *testenv.Client19) error {
			_, err := c.MultigetSlice(ctx, [][]byte{[]byte("k")}, parent, pred, one)
			return err
		}},
		{label: "multiget_count", run: func(c *testenv.Client19) error {
			_, err := c.MultigetCount(ctx, [][]byte{[]byte("k")}, parent, pred, one)
			return err
		}},
		{label: "get_range_slices", run: func(c *testenv.Client19) error {
			_, err := c.GetRangeSlices(ctx, parent, pred, keys, one)
			return err
		}},
		{label: "get_paged_slice", run: func(c *testenv.Client19) error {
			_, err := c.GetPagedSlice(ctx, "cf", keys, []byte{}, one)
			return err
		}},
		{label: "get_indexed_slices", run: func(c *testenv.Client19) error {
			clause := &cassandra19.IndexClause{Expressions: []*cassandra19.IndexExpression{{ColumnName: []byte("c"), Op: cassandra19.IndexOperator_EQ, Value: []byte("v")}},
				StartKey: []byte{}, Count: 10}
			_, err := c.GetIndexedSlices(ctx, parent, clause, pred, one)
			return err
		}},
		{label: "get_multi_slice", run: func(c *testenv.Client19) error {
			_, err := c.GetMultiSlice(ctx, &cassandra19.MultiSliceRequest{Key: []byte("k"), ColumnParent: parent,
				ColumnSlices: []*cassandra19.ColumnSlice{{Start: []byte{}, Finish: []byte{}}}, Count: 10, ConsistencyLevel: one})
			return err
		}},
		{label: "insert", run: func(c *testenv.Client19) error { return c.Insert(ctx, []byte("k"), parent, col, one) }},
		{label: "insert cf2", run: func(c *testenv.Client19) error {
			return c.Insert(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "cf2"}, col, one)
		}},
		{label: "add", run: func(c *testenv.Client19) error {
			return c.Add(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "cnt"}, &cassandra19.CounterColumn{Name: []byte("c"), Value: 1}, one)
		}},
		{label: "remove_counter", run: func(c *testenv.Client19) error {
			return c.RemoveCounter(ctx, []byte("k"), &cassandra19.ColumnPath{ColumnFamily: "cnt", Column: []byte("c")}, one)
		}},
		{label: "cas", run: func(c *testenv.Client19) error {
			_, err := c.Cas(ctx, []byte("k"), "cf", nil, []*cassandra19.Column{col}, cassandra19.ConsistencyLevel_SERIAL, one)
			return err
		}},
		{label: "remove", run: func(c *testenv.Client19) error {
			return c.Remove(ctx, []byte("k"), &cassandra19.ColumnPath{ColumnFamily: "cf", Column: []byte("c")}, 2, one)
		}},
		{label: "batch_mutate", run: func(c *testenv.Client19) error { return c.BatchMutate(ctx, mutation("cf"), one) }},
		{label: "batch_mutate cf2", run: func(c *testenv.Client19) error { return c.BatchMutate(ctx, mutation("cf2"), one) }},
		{label: "atomic_batch_mutate", run: func(c *testenv.Client19) error { return c.AtomicBatchMutate(ctx, mutation("cf"), one) }},
		{label: "atomic_batch_mutate cf2", run: func(c *testenv.Client19) error { return c.AtomicBatchMutate(ctx, mutation("cf2"), one) }},
		{label: "get unknown family", run: func(c *testenv.Client19) error {
			_, err := c.GetSlice(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "nope"}, pred, one)
			return err
		}},
		{label: "describe_keyspace", run: func(c *testenv.Client19) error { _, err := c.DescribeKeyspace(ctx, ks); return err }},
		{label: "describe_keyspace unknown", run: func(c *testenv.Client19) error { _, err := c.DescribeKeyspace(ctx, ks+"_nope"); return err }},
		{label: "describe_keyspaces", run: func(c *testenv.Client19) error { _, err := c.DescribeKeyspaces(ctx); return err }},
		{label: "describe_schema_versions", run: func(c *testenv.Client19) error { _, err := c.DescribeSchemaVersions(ctx); return err }},
		{label: "describe_ring", run: func(c *testenv.Client19) error { _, err := c.DescribeRing(ctx, ks); return err }},
		{label: "describe_local_ring", run: func(c *testenv.Client19) error { _, err := c.DescribeLocalRing(ctx, ks); return err }},
		{label: "describe_token_map", run: func(c *testenv.Client19) error { _, err := c.DescribeTokenMap(ctx); return err }},
		// Tokens both partitioners read: RandomPartitioner (the
		// references) and thriftd's CollatingOrderPreservingPartitioner.
		{label: "describe_splits", run: func(c *testenv.Client19) error {
			_, err := c.DescribeSplits(ctx, "cf", "00", "10", 1000)
			return err
		}},
		{label: "describe_splits_ex", run: func(c *testenv.Client19) error {
			_, err := c.DescribeSplitsEx(ctx, "cf", "00", "10", 1000)
			return err
		}},
		{label: "describe_version", run: func(c *testenv.Client19) error { _, err := c.DescribeVersion(ctx); return err }},
		{label: "describe_cluster_name", run: func(c *testenv.Client19) error { _, err := c.DescribeClusterName(ctx); return err }},
		{label: "describe_partitioner", run: func(c *testenv.Client19) error { _, err := c.DescribePartitioner(ctx); return err }},
		{label: "describe_snitch", run: func(c *testenv.Client19) error { _, err := c.DescribeSnitch(ctx); return err }},
		{label: "trace_next_query", run: func(c *testenv.Client19) error { _, err := c.TraceNextQuery(ctx); return err }},
		// CQL 2 first, then set_cql_version sets CQL 3, after which CQL 2
		// is refused.
		{label: "execute_cql_query", run: func(c *testenv.Client19) error {
			_, err := c.ExecuteCqlQuery(ctx, []byte("SELECT * FROM cf"), cassandra19.Compression_NONE)
			return err
		}},
		{label: "prepare_cql_query", run: func(c *testenv.Client19) error {
			_, err := c.PrepareCqlQuery(ctx, []byte("SELECT * FROM cf"), cassandra19.Compression_NONE)
			return err
		}},
		{label: "execute_prepared_cql_query", run: func(c *testenv.Client19) error {
			_, err := c.ExecutePreparedCqlQuery(ctx, 12345, nil)
			return err
		}},
		{label: "set_cql_version", run: func(c *testenv.Client19) error { return c.SetCqlVersion(ctx, "3.0.0") }},
		{label: "execute_cql_query after set_cql_version", run: func(c *testenv.Client19) error {
			_, err := c.ExecuteCqlQuery(ctx, []byte("SELECT * FROM cf"), cassandra19.Compression_NONE)
			return err
		}},
		{label: "execute_cql3_query schema", run: cql3("SELECT keyspace_name FROM system.schema_keyspaces")},
		{label: "execute_cql3_query ks.cf", run: cql3("SELECT * FROM " + ks + ".cf")},
		{label: "prepare_cql3_query", run: func(c *testenv.Client19) error {
			_, err := c.PrepareCql3Query(ctx, []byte("SELECT * FROM "+ks+".cf"), cassandra19.Compression_NONE)
			return err
		}},
		{label: "execute_prepared_cql3_query", run: func(c *testenv.Client19) error {
			_, err := c.ExecutePreparedCql3Query(ctx, 12345, nil, one)
			return err
		}},
		{label: "truncate", run: func(c *testenv.Client19) error { return c.Truncate(ctx, "cf2") }},
		{label: "system_update_keyspace", run: func(c *testenv.Client19) error {
			_, err := c.SystemUpdateKeyspace(ctx, ksDef(ks))
			return err
		}},
		{label: "system_update_column_family", run: func(c *testenv.Client19) error {
			d := cfDef(ks, "cf2")
			d.Comment = ptr("updated")
			_, err := c.SystemUpdateColumnFamily(ctx, d)
			return err
		}},
		{label: "system_add_keyspace", run: func(c *testenv.Client19) error {
			_, err := c.SystemAddKeyspace(ctx, ksDef(ksNew))
			return err
		}, restore: func(s *side) { ignore(s.root.SystemDropKeyspace(ctx, ksNew)) }},
		{label: "system_add_column_family", run: func(c *testenv.Client19) error {
			_, err := c.SystemAddColumnFamily(ctx, cfDef(ks, "cf3"))
			return err
		}, restore: func(s *side) { ignore(s.root.SystemDropColumnFamily(ctx, "cf3")) }},
		{label: "system_drop_column_family", run: func(c *testenv.Client19) error { _, err := c.SystemDropColumnFamily(ctx, "cf2"); return err },
			restore: func(s *side) {
				if s.name == "reference" {
					refFamily(ks, "cf2")
				} else if _, err := s.root.SystemAddColumnFamily(ctx, cfDef(ks, "cf2")); err != nil {
					t.Fatalf("%s: adding cf2 again: %v", s.name, why(err))
				}
			}},
		{label: "system_drop_keyspace", run: func(c *testenv.Client19) error { _, err := c.SystemDropKeyspace(ctx, ksDrop); return err },
			restore: func(s *side) {
				if s.name == "reference" {
					refKeyspace(ksDrop)
				} else if _, err := s.root.SystemAddKeyspace(ctx, ksDef(ksDrop)); err != nil {
					t.Fatalf("%s: adding %s again: %v", s.name, ksDrop, why(err))
				}
			}},
		{label: "system_add_keyspace system", run: func(c *testenv.Client19) error { _, err := c.SystemAddKeyspace(ctx, ksDef("system")); return err }},
		{label: "system_update_keyspace system", run: func(c *testenv.Client19) error {
			_, err := c.SystemUpdateKeyspace(ctx, ksDef("system"))
			return err
		}},
		{label: "system_drop_keyspace system", run: func(c *testenv.Client19) error { _, err := c.SystemDropKeyspace(ctx, "system"); return err }},
	}
	// noKeyspace are calls made on a connection that has not set a
	// keyspace: 2.1 refuses each before anything else.
	noKeyspace := []call{
		{label: "get_slice without keyspace", run: func(c *testenv.Client19) error { _, err := c.GetSlice(ctx, []byte("k"), parent, pred, one); return err }},
		{label: "get_range_slices without keyspace", run: func(c *testenv.Client19) error {
			_, err := c.GetRangeSlices(ctx, parent, pred, keys, one)
			return err
		}},
		{label: "get_paged_slice without keyspace", run: func(c *testenv.Client19) error {
			_, err := c.GetPagedSlice(ctx, "cf", keys, []byte{}, one)
			return err
		}},
		{label: "get_multi_slice without keyspace", run: func(c *testenv.Client19) error {
			_, err := c.GetMultiSlice(ctx, &cassandra19.MultiSliceRequest{Key: []byte("k"), ColumnParent: parent,
				ColumnSlices: []*cassandra19.ColumnSlice{{Start: []byte{}, Finish: []byte{}}}, Count: 10, ConsistencyLevel: one})
			return err
		}},
		{label: "insert without keyspace", run: func(c *testenv.Client19) error { return c.Insert(ctx, []byte("k"), parent, col, one) }},
		{label: "batch_mutate without keyspace", run: func(c *testenv.Client19) error { return c.BatchMutate(ctx, mutation("cf"), one) }},
		{label: "cas without keyspace", run: func(c *testenv.Client19) error {
			_, err := c.Cas(ctx, []byte("k"), "cf", nil, []*cassandra19.Column{col}, cassandra19.ConsistencyLevel_SERIAL, one)
			return err
		}},
		{label: "truncate without keyspace", run: func(c *testenv.Client19) error { return c.Truncate(ctx, "cf2") }},
		{label: "describe_splits_ex without keyspace", run: func(c *testenv.Client19) error {
			_, err := c.DescribeSplitsEx(ctx, "cf", "00", "10", 1000)
			return err
		}},
		{label: "system_add_column_family without keyspace", run: func(c *testenv.Client19) error {
			_, err := c.SystemAddColumnFamily(ctx, cfDef(ks, "cf3"))
			return err
		}},
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
	compare := func(s *side, label, ref, thr string) {
		t.Helper()
		if testing.Verbose() && s == sides[1] {
			t.Logf("%s: %s", label, ref)
		}
		if thr != ref && documented(label, thr) {
			s.documented++
			return
		}
		if roles {
			if k := ref311(label, thr); k != "" && thr != ref {
				// 3.11's own wording.
				if ref != k {
					t.Errorf("%s: %s: the reference answered %q, not the known %q", s.name, label, ref, k)
					s.other++
					return
				}
				s.own++
				return
			}
		}
		if thr != ref {
			t.Errorf("%s: %s:\n  reference %s\n  thriftd   %s", s.name, label, ref, thr)
			s.other++
			return
		}
		s.equal++
	}
	defer func() {
		for _, s := range sides[1:] {
			t.Logf("thriftd on %s: compared %d outcomes with the reference's: %d equal, %d thriftd's documented differences, %d the reference's own wording, %d other",
				s.name, s.equal+s.documented+s.own+s.other, s.equal, s.documented, s.own, s.other)
			// The figure the documentation quotes: calls answered as the
			// reference did.
			t.Logf("thriftd on %s: %d of %d calls answered as the reference did", s.name, s.equal, s.equal+s.documented+s.own+s.other)
		}
	}()
	// Refused logins.
	reader := "reader_" + sfx
	for _, tc := range []struct {
		label string
		creds map[string]string
	}{
		{"login wrong password " + reader, creds(reader, "wrong")},
		// More failures of one user from this host than any bound
		// thriftd would set by default: 2.1 has none, and every user
		// still logs in below.
		{"login wrong password again " + reader, creds(reader, "wrong")},
		{"login wrong password again " + reader, creds(reader, "wrong")},
		{"login wrong password again " + reader, creds(reader, "wrong")},
		{"login wrong password again " + reader, creds(reader, "wrong")},
		{"login wrong password again " + reader, creds(reader, "wrong")},
		{"login wrong password again " + reader, creds(reader, "wrong")},
		{"login wrong password again " + reader, creds(reader, "wrong")},
		{"login wrong password again " + reader, creds(reader, "wrong")},
		{"login wrong password again " + reader, creds(reader, "wrong")},
		{"login wrong password again " + reader, creds(reader, "wrong")},
		{"login wrong password again " + reader, creds(reader, "wrong")},
		{"login unknown user again nobody_" + sfx, creds("nobody_"+sfx, "wrong")},
		{"login unknown user nobody_" + sfx, creds("nobody_"+sfx, "wrong")},
		{"login without username", map[string]string{"password": "x"}},
		{"login without password " + reader, map[string]string{"username": reader}},
	} {
		got := make([]string, len(sides))
		for i, s := range sides {
			c, _ := dialLogin(t, s.addr, "", "")
			got[i] = outcome(c.Login(ctx, &cassandra19.AuthenticationRequest{Credentials: tc.creds}))
		}
		for i, s := range sides[1:] {
			compare(s, tc.label, got[0], got[i+1])
		}
	}
	// Every call, as each user.
	for _, u := range users {
		user := ""
		if u.name != "" {
			user = u.name + "_" + sfx
		}
		conns := make([]*testenv.Client19, len(sides))
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
		bare := make([]*testenv.Client19, len(sides))
		for i, s := range sides {
			c, err := dialLogin(t, s.addr, user, password)
			if err != nil {
				t.Fatalf("%s: login %s: %v", s.name, user, why(err))
			}
			bare[i] = c
		}
		for _, cl := range noKeyspace {
			label := fmt.Sprintf("%s as %q", cl.label, u.name)
			got := make([]string, len(sides))
			for i := range sides {
				got[i] = outcome(cl.run(bare[i]))
			}
			for i, s := range sides[1:] {
				compare(s, label, got[0], got[i+1])
			}
		}
		for _, cl := range calls {
			label := fmt.Sprintf("%s as %q", cl.label, u.name)
			got := make([]string, len(sides))
			for i, s := range sides {
				got[i] = outcome(cl.run(conns[i]))
				if got[i] == "ok" && cl.restore != nil {
					cl.restore(s)
				}
			}
			for i, s := range sides[1:] {
				compare(s, label, got[0], got[i+1])
			}
		}
	}
}
