package cqlstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// with19 is base plus keyspace ks holding the given 19.x column families.
func with19(base *schema.Schema, ks string, cfs ...*schema.ColumnFamily) *schema.Schema {
	next := *base
	next.Keyspaces = maps.Clone(base.Keyspaces)
	k := &schema.Keyspace{Name: ks, ReplicationFactor: 1, ColumnFamilies: map[string]*schema.ColumnFamily{},
		Options: schema.StrategyOf19("org.apache.cassandra.locator.SimpleStrategy", 1)}
	for _, cf := range cfs {
		c := *cf
		c.Keyspace = ks
		k.ColumnFamilies[c.Name] = &c
	}
	next.Keyspaces[ks] = k
	return &next
}

func without(base *schema.Schema, ks string) *schema.Schema {
	next := *base
	next.Keyspaces = maps.Clone(base.Keyspaces)
	delete(next.Keyspaces, ks)
	return &next
}

func cmp(t testing.TB, class string) marshal.Comparator {
	t.Helper()
	c, err := marshal.Lookup(class)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// dynamic is a 19.x Standard column family.
func dynamic(t testing.TB, name, key, comparatorClass, value string) *schema.ColumnFamily {
	return &schema.ColumnFamily{Name: name, Comparator: cmp(t, comparatorClass),
		KeyValidator: cmp(t, key), DefaultValidator: cmp(t, value), Options: schema.DefaultFamilyOptions()}
}

// openAnother opens a second store (a second thriftd) on o's prefix.
func openAnother(t testing.TB, s *schema.Schema, o Options) *Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := Open(ctx, s, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func change(t testing.TB, st *Store, next *schema.Schema, encoded string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := st.ChangeSchema(ctx, next, []byte(encoded)); err != nil {
		t.Fatal(err)
	}
}

func apply(t testing.TB, st *Store, ks string, rows ...engine.RowMutation) {
	t.Helper()
	if err := st.Apply(context.Background(), ks, rows); err != nil {
		t.Fatal(err)
	}
}

func stored(t testing.TB, st *Store) string {
	t.Helper()
	b, err := st.StoredSchema(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if b == nil {
		return "<nil>"
	}
	return string(b)
}

// TestSchemaChangesAcrossTwoStores is two thriftd processes on one
// prefix: each reads what the other records, follows its changes, and a
// stale change is refused.
func TestSchemaChangesAcrossTwoStores(t *testing.T) {
	base := storetest.TestSchema(t, "RandomPartitioner")
	a, o := openFresh(t, base, 864000)
	b := openAnother(t, base, o)
	if got := stored(t, a); got != "<nil>" {
		t.Fatalf("a new prefix records %q", got)
	}
	dyn := dynamic(t, "Dyn", "UTF8Type", "UTF8Type", "LongType")
	s1 := with19(base, "KS19", dyn)
	change(t, a, s1, "v1")
	if got := stored(t, b); got != "v1" {
		t.Fatalf("the other store reads %q, want v1", got)
	}
	// b follows: the same bytes record nothing and serve s1.
	change(t, b, s1, "v1")
	apply(t, b, "KS19", engine.RowMutation{Key: "k", Mutations: []engine.Mutation{
		{ColumnFamily: "Dyn", Name: []byte("n"), Value: storetest.Long(7), Timestamp: 1}}})
	row, err := a.Get(context.Background(), "KS19", "k", engine.Query{ColumnFamily: "Dyn", Predicate: storetest.All(10)})
	if err != nil {
		t.Fatal(err)
	}
	if len(row.Columns) != 1 || string(row.Columns[0].Name) != "n" || string(row.Columns[0].Value) != string(storetest.Long(7)) {
		t.Fatalf("a reads %+v of what b wrote", row)
	}

	// a changes again; b, which has not read it, is refused.
	s2 := with19(s1, "KS19b", dynamic(t, "Other", "BytesType", "BytesType", "BytesType"))
	change(t, a, s2, "v2")
	err = b.ChangeSchema(context.Background(), with19(s1, "KS19c"), []byte("v3"))
	if err == nil || !strings.Contains(err.Error(), "changed by another thriftd") {
		t.Fatalf("a stale change: %v", err)
	}
	if got := stored(t, b); got != "v2" {
		t.Fatalf("b reads %q, want v2", got)
	}

	// b drops Dyn (its keyspace), then creates it again: empty.
	change(t, b, without(s2, "KS19"), "v3")
	if _, err := a.Get(context.Background(), "KS19", "k", engine.Query{ColumnFamily: "Dyn", Predicate: storetest.All(10)}); err == nil {
		// a still serves s2 until its catalog tells it; the table is gone.
		t.Log("a's read of a dropped family did not fail")
	}
	if got := stored(t, a); got != "v3" {
		t.Fatalf("a reads %q, want v3", got)
	}
	change(t, a, s2, "v4")
	row, err = a.Get(context.Background(), "KS19", "k", engine.Query{ColumnFamily: "Dyn", Predicate: storetest.All(10)})
	if err != nil {
		t.Fatal(err)
	}
	if len(row.Columns) != 0 {
		t.Fatalf("a family created again after a drop holds %+v", row)
	}
	v, err := a.SchemaVersions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != 1 || v[unreachable] != nil {
		t.Fatalf("schema versions after a change: %v", v)
	}
	for _, nodes := range v {
		if want := strings.Split(o.Cluster.Hosts[0], ":")[0]; len(nodes) != 1 || nodes[0] != want {
			t.Fatalf("schema versions name %v, want [%s]", nodes, want)
		}
	}
}

// TestUnknownRecordOutcomeIsSettled answers the schema record's
// transaction "CAS operation result is unknown", as a busy cluster does
// when a proposal reached fewer replicas than a quorum: once before it was
// applied (the change is sent again) and once after (a serial read finds
// it applied, and it is not sent again). Either way the change is made.
func TestUnknownRecordOutcomeIsSettled(t *testing.T) {
	base := storetest.TestSchema(t, "RandomPartitioner")
	st, _ := openFresh(t, base, 864000)
	unknown := &gocql.RequestErrCASWriteUnknown{Received: 1, BlockFor: 2}
	for _, c := range []struct {
		name     string
		sent     bool // the transaction reaches the cluster before the error
		encoded  string
		attempts int
	}{
		{"not applied", false, "v1", 2},
		{"applied", true, "v2", 1},
	} {
		attempts := 0
		st.recordHook = func(ctx context.Context, q *gocql.Query, attempt int) (bool, bool, error) {
			attempts = attempt
			if attempt > 1 {
				return false, false, nil
			}
			if c.sent {
				if _, err := q.WithContext(ctx).Consistency(gocql.Quorum).SerialConsistency(gocql.Serial).MapScanCAS(map[string]any{}); err != nil {
					return false, true, err
				}
			}
			return false, true, unknown
		}
		change(t, st, with19(base, "KS_"+strings.ReplaceAll(c.name, " ", "_"), dynamic(t, "Dyn", "UTF8Type", "UTF8Type", "LongType")), c.encoded)
		st.recordHook = nil
		if got := stored(t, st); got != c.encoded {
			t.Errorf("%s: recorded %q, want %q", c.name, got, c.encoded)
		}
		if attempts != c.attempts {
			t.Errorf("%s: the transaction was sent %d times, want %d", c.name, attempts, c.attempts)
		}
	}
}

// TestUnknownRecordOutcomeLostToAnotherProcess answers the schema
// record's transaction "CAS operation result is unknown" after another
// process has recorded a change of its own at the same version, as two
// thriftd processes starting at once on a new prefix can contend: the
// serial read finds the other record, and the change fails with
// ErrSchemaChanged (the caller reads that record and serves it), not with
// the unknown outcome.
func TestUnknownRecordOutcomeLostToAnotherProcess(t *testing.T) {
	base := storetest.TestSchema(t, "RandomPartitioner")
	st, _ := openFresh(t, base, 864000)
	unknown := &gocql.RequestErrCASWriteUnknown{Received: 1, BlockFor: 2}
	before := st.catalog.version
	st.recordHook = func(ctx context.Context, q *gocql.Query, attempt int) (bool, bool, error) {
		if attempt > 1 {
			t.Errorf("the transaction was sent again (attempt %d) after another process's record was read", attempt)
			return false, false, nil
		}
		other := st.recordQuery(before, []byte("other"))
		if applied, err := other.WithContext(ctx).Consistency(gocql.Quorum).SerialConsistency(gocql.Serial).MapScanCAS(map[string]any{}); err != nil || !applied {
			return false, true, fmt.Errorf("the other process's record: applied %v, %v", applied, err)
		}
		return false, true, unknown
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	err := st.ChangeSchema(ctx, with19(base, "KS_lost", dynamic(t, "Dyn", "UTF8Type", "UTF8Type", "LongType")), []byte("mine"))
	st.recordHook = nil
	if !errors.Is(err, ErrSchemaChanged) {
		t.Fatalf("ChangeSchema = %v, want an error wrapping ErrSchemaChanged", err)
	}
	if got := stored(t, st); got != "other" {
		t.Errorf("recorded %q, want the other process's %q", got, "other")
	}
}

// TestNameTooLongOncePrefixedIsRefused adds a keyspace whose name fits
// Cassandra's 48 characters but not once the store's prefix is put
// before it: the change is refused as the client's (engine.RefusedError,
// an InvalidRequestException), not failed as the server's.
func TestNameTooLongOncePrefixedIsRefused(t *testing.T) {
	base := storetest.TestSchema(t, "RandomPartitioner")
	st, o := openFresh(t, base, 864000)
	name := "K" + strings.Repeat("x", 48-len(o.Prefix)) // 49 characters with the prefix: one too many
	err := st.ChangeSchema(context.Background(), with19(base, name, dynamic(t, "Dyn", "UTF8Type", "UTF8Type", "LongType")), []byte("long"))
	var refused *engine.RefusedError
	if !errors.As(err, &refused) || !strings.Contains(refused.Why, "over Cassandra's limit of 48") {
		t.Fatalf("a keyspace of %d characters under prefix %q: %v, want an engine.RefusedError naming the limit", len(name), o.Prefix, err)
	}
	if got := stored(t, st); got != "<nil>" {
		t.Errorf("the refused change was recorded: %q", got)
	}
}

// TestDropFamilyKeepsTheOthers drops one column family of a keyspace, and
// a family of the same name created later starts empty.
func TestDropFamilyKeepsTheOthers(t *testing.T) {
	base := storetest.TestSchema(t, "RandomPartitioner")
	st, _ := openFresh(t, base, 864000)
	one, two := dynamic(t, "One", "BytesType", "BytesType", "BytesType"), dynamic(t, "Two", "BytesType", "BytesType", "BytesType")
	change(t, st, with19(base, "K", one, two), "1")
	put := func(cf string) {
		apply(t, st, "K", engine.RowMutation{Key: "k", Mutations: []engine.Mutation{{ColumnFamily: cf, Name: []byte("c"), Value: []byte("v"), Timestamp: 1}}})
	}
	put("One")
	put("Two")
	storetest.Apply(t, st, storetest.Put("Standard1", "k", "c", "v", 1))
	change(t, st, with19(base, "K", one), "2")
	if _, err := st.Get(context.Background(), "K", "k", engine.Query{ColumnFamily: "Two", Predicate: storetest.All(10)}); err == nil {
		t.Fatal("a dropped family is still served")
	}
	storetest.Expect(t, storetest.Get(t, st, "Standard1", "k", nil, storetest.All(10)), "c=v@1")
	got := func(cf string) int {
		row, err := st.Get(context.Background(), "K", "k", engine.Query{ColumnFamily: cf, Predicate: storetest.All(10)})
		if err != nil {
			t.Fatal(err)
		}
		return len(row.Columns)
	}
	if got("One") != 1 {
		t.Fatal("the family kept lost its data")
	}
	change(t, st, with19(base, "K", one, two), "3")
	if n := got("Two"); n != 0 {
		t.Fatalf("a family created again holds %d columns", n)
	}
}

// TestTruncate empties a family: what was written before is gone, later
// writes are kept even with older timestamps.
func TestTruncate(t *testing.T) {
	base := storetest.TestSchema(t, "RandomPartitioner")
	st, _ := openFresh(t, base, 864000)
	storetest.Apply(t, st, storetest.Put("Standard1", "k", "a", "1", 100), storetest.Put("Standard2", "k", "a", "1", 100))
	if err := st.Truncate(context.Background(), storetest.Keyspace, "Standard1"); err != nil {
		t.Fatal(err)
	}
	storetest.Expect(t, storetest.Get(t, st, "Standard1", "k", nil, storetest.All(10)), "")
	storetest.Expect(t, storetest.Get(t, st, "Standard2", "k", nil, storetest.All(10)), "a=1@100")
	storetest.Apply(t, st, storetest.Put("Standard1", "k", "b", "2", 50))
	storetest.Expect(t, storetest.Get(t, st, "Standard1", "k", nil, storetest.All(10)), "b=2@50")
}

// TestSchemaVersionsReportsADownNode stops nothing: it points the store
// at a node, then asks for the versions through a session whose host list
// holds an address nothing listens on, which must be UNREACHABLE.
func TestSchemaVersionsOfOneNode(t *testing.T) {
	base := storetest.TestSchema(t, "RandomPartitioner")
	st, _ := openFresh(t, base, 864000)
	node := func() string {
		var v gocql.UUID
		if err := st.session.Query(`SELECT schema_version FROM system.local`).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v.String()
	}
	// Other test packages change the shared node's schema at any time:
	// the answer is compared with the node's own version only when that
	// did not change around the call.
	for try := 0; try < 20; try++ {
		before := node()
		v, err := st.SchemaVersions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if after := node(); after != before {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		var live string
		for k := range v {
			live = k
		}
		if _, err := gocql.ParseUUID(live); len(v) != 1 || err != nil {
			t.Fatalf("versions %v", v)
		}
		// The version is the node's own.
		if live != before {
			t.Fatalf("version %s, the node says %s", live, before)
		}
		return
	}
	t.Fatal("the node's schema version changed around each of 20 calls")
}

func TestRetryableDDL(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{errors.New("java.lang.IllegalArgumentException: Unknown CF 1234"), true},
		{fmt.Errorf("x: %w", context.Canceled), false},
		{gocql.ErrNoConnections, true},
	} {
		if got := retryableDDL(c.err); got != c.want {
			t.Errorf("retryableDDL(%v) = %v", c.err, got)
		}
	}
}

// TestOrphanTableIsReplaced empties the catalog's tables, as test
// harnesses that reuse a prefix do (testenv.TruncatePrefix), and creates a
// family of the same name with another comparator: its table is created
// anew with the new types, empty.
func TestOrphanTableIsReplaced(t *testing.T) {
	base := storetest.TestSchema(t, "RandomPartitioner")
	st, o := openFresh(t, base, 864000)
	change(t, st, with19(base, "K", dynamic(t, "Orphan", "BytesType", "UTF8Type", "BytesType")), "1")
	apply(t, st, "K", engine.RowMutation{Key: "k", Mutations: []engine.Mutation{{ColumnFamily: "Orphan", Name: []byte("a"), Value: []byte("v"), Timestamp: 1}}})
	for _, table := range []string{catalogTable, familiesTable} {
		if err := st.session.Query(`TRUNCATE ` + st.catalogName(table)).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	fresh := openAnother(t, base, o)
	if got := stored(t, fresh); got != "<nil>" {
		t.Fatalf("the emptied record reads %q", got)
	}
	change(t, fresh, with19(base, "K", dynamic(t, "Orphan", "BytesType", "LongType", "BytesType")), "2")
	if got, want := columnTypes(t, fresh.session, keyspaceName(o.Prefix, "K"), "Orphan"), "column1 bigint clustering asc, ghost blob static, key blob partition_key, value blob regular, written_ttl int regular"; got != want {
		t.Fatalf("columns %s, want %s", got, want)
	}
	row, err := fresh.Get(context.Background(), "K", "k", engine.Query{ColumnFamily: "Orphan", Predicate: storetest.All(10)})
	if err != nil || len(row.Columns) != 0 {
		t.Fatalf("the new family holds %+v, %v", row, err)
	}
}
