package cqlstore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// TestIndexConformance runs the engine.Indexer suite on a real node.
func TestIndexConformance(t *testing.T) {
	storetest.RunIndexes(t, reopeningHarness())
}

// An indexed column holds values shorter than 65,535 bytes, as in 1.2: a
// longer one is refused as a RefusedError (the client's
// InvalidRequestException, in 1.2's words) and not written; another
// column of the family, or a family without an index, takes it. A value
// too long for an entry's partition key as it is still finds its row.
func TestIndexedFamilyValueLimit(t *testing.T) {
	s := storetest.TestSchema(t, "org.apache.cassandra.dht.RandomPartitioner")
	st, _ := openFresh(t, s, 864000)
	next := storetest.Clone(s, "v2")
	next.Keyspaces[storetest.Keyspace].ColumnFamilies["Standard1"].Columns = []schema.ColumnDef{
		{Name: []byte("state"), Index: &schema.IndexDef{Type: schema.IndexKeys, Name: "Standard1_state_idx"}}}
	if err := st.ChangeSchema(ctx, next, []byte("v2")); err != nil {
		t.Fatal(err)
	}
	write := func(cf, name string, size int) error {
		return st.Apply(ctx, storetest.Keyspace, []engine.RowMutation{{Key: "k", Mutations: []engine.Mutation{
			{ColumnFamily: cf, Name: []byte(name), Value: make([]byte, size), Timestamp: 1}}}})
	}
	if err := write("Standard1", "state", 65534); err != nil {
		t.Errorf("state: 65,534 bytes: %v", err)
	}
	var refused *engine.RefusedError
	err := st.Apply(ctx, storetest.Keyspace, []engine.RowMutation{{Key: "k2", Mutations: []engine.Mutation{
		{ColumnFamily: "Standard1", Name: []byte("state"), Value: make([]byte, 65535), Timestamp: 2}}}})
	if want := "Can't index column value of size 65535 for index Standard1_state_idx in CF Standard1 of KS Keyspace1"; !errors.As(err, &refused) || refused.Why != want {
		t.Errorf("state: 65,535 bytes: %v, want a RefusedError %q", err, want)
	}
	if err := write("Standard1", "other", 70000); err != nil {
		t.Errorf("a column without an index: %v", err)
	}
	if err := write("Standard2", "other", 70000); err != nil {
		t.Errorf("a family without an index: %v", err)
	}
	row, err := st.Get(ctx, storetest.Keyspace, "k", engine.Query{ColumnFamily: "Standard1", Predicate: engine.Predicate{Count: 10}})
	if err != nil || len(row.Columns) != 2 {
		t.Errorf("after the writes: %d columns, %v; want the two that fit", len(row.Columns), err)
	}
	row, err = st.Get(ctx, storetest.Keyspace, "k2", engine.Query{ColumnFamily: "Standard1", Predicate: engine.Predicate{Count: 10}})
	if err != nil || len(row.Columns) != 0 {
		t.Errorf("the refused write: %d columns, %v; want none", len(row.Columns), err)
	}
	var keys []string
	ready := false
	for deadline := time.Now().Add(2 * time.Minute); !ready && err == nil && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		keys, ready, err = st.IndexedKeys(ctx, storetest.Keyspace, "Standard1", []byte("state"), make([]byte, 65534), engine.TokenRange{StartInclusive: true}, 10)
	}
	if err != nil || !ready || fmt.Sprint(keys) != "[k]" {
		t.Errorf("state = 65,534 zero bytes: %v, ready %v, %v; want [k]", keys, ready, err)
	}
}

// Families of the 19.x layout whose value column has a CQL type of its
// own (text, bigint) are indexed and queried in that type; a counter
// family gets no index; an index whose last KEYS column goes is dropped.
func TestIndexOnTypedTables(t *testing.T) {
	base := storetest.TestSchema(t, "Murmur3Partitioner")
	st, o := openFresh(t, base, 864000)
	var err error
	keys := func(name string) []schema.ColumnDef {
		return []schema.ColumnDef{{Name: []byte(name), Index: &schema.IndexDef{Type: schema.IndexKeys, Name: name + "_idx"}}}
	}
	text := dynamic(t, "Text", "UTF8Type", "UTF8Type", "UTF8Type")
	text.Columns = keys("state")
	long := dynamic(t, "Long", "BytesType", "AsciiType", "LongType")
	long.Columns = keys("n")
	ctr := dynamic(t, "Ctr", "BytesType", "AsciiType", "BytesType")
	if ctr.DefaultValidator, err = marshal.Parse("CounterColumnType"); err != nil {
		t.Fatal(err)
	}
	ctr.Columns = keys("c")
	change(t, st, with19(base, "T", text, long, ctr), "1")
	cqlKS := keyspaceName(o.Prefix, "T")
	indexes := func() map[string]bool {
		t.Helper()
		markers, err := st.indexMarkers(ctx, cqlKS)
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]bool{}
		for _, m := range markers {
			have[m[0]] = true
		}
		return have
	}
	if have := indexes(); !have["Text"] || !have["Long"] || have["Ctr"] {
		t.Fatalf("indexes on %v, want Text and Long", have)
	}
	n := func(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
	for i, state := range []string{"CA", "NY", "CA", "TX", "CA"} {
		key := fmt.Sprintf("k%d", i)
		apply(t, st, "T", engine.RowMutation{Key: key, Mutations: []engine.Mutation{
			{ColumnFamily: "Text", Name: []byte("state"), Value: []byte(state), Timestamp: 1},
			{ColumnFamily: "Text", Name: []byte("other"), Value: []byte("CA"), Timestamp: 1},
			{ColumnFamily: "Long", Name: []byte("n"), Value: n(int64(i % 2)), Timestamp: 1},
		}})
	}
	apply(t, st, "T", engine.RowMutation{Key: "other-only", Mutations: []engine.Mutation{
		{ColumnFamily: "Text", Name: []byte("other"), Value: []byte("CA"), Timestamp: 1}}})
	part := base.Partitioner
	sorted := func(ks ...string) string {
		sort.Slice(ks, func(i, j int) bool { return bytes.Compare(part.Token(ks[i]), part.Token(ks[j])) < 0 })
		return fmt.Sprint(ks)
	}
	query := func(cf, column string, value []byte, b engine.TokenRange) string {
		t.Helper()
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
			got, ready, err := st.IndexedKeys(ctx, "T", cf, []byte(column), value, b, 100)
			if err != nil {
				t.Fatal(err)
			}
			if ready {
				return fmt.Sprint(got)
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s.%s: the index is not ready after 2 minutes", cf, column)
			}
		}
	}
	all := engine.TokenRange{StartInclusive: true}
	if got, want := query("Text", "state", []byte("CA"), all), sorted("k0", "k2", "k4"); got != want {
		t.Errorf("Text state = CA: %v, want %v (token order, not the other column's CA)", got, want)
	}
	if got, want := query("Long", "n", n(1), all), sorted("k1", "k3"); got != want {
		t.Errorf("Long n = 1: %v, want %v", got, want)
	}
	first := strings.Trim(sorted("k0", "k2", "k4"), "[]")
	from := strings.Fields(first)[0]
	if got, want := query("Text", "state", []byte("CA"), engine.TokenRange{Start: part.Token(from)}), strings.Replace(sorted("k0", "k2", "k4"), from+" ", "", 1); got != want {
		t.Errorf("Text state = CA after %s: %v, want %v", from, got, want)
	}
	if _, ready, err := st.IndexedKeys(ctx, "T", "Ctr", []byte("c"), n(1), all, 10); ready || err != nil {
		t.Errorf("a counter family's index answered ready = %v, %v", ready, err)
	}

	long.Columns = nil
	change(t, st, with19(base, "T", text, long, ctr), "2")
	if have := indexes(); !have["Text"] || have["Long"] {
		t.Errorf("after Long's KEYS column went: indexes on %v, want Text only", have)
	}
	if _, ready, err := st.IndexedKeys(ctx, "T", "Long", []byte("n"), n(1), all, 10); ready || err != nil {
		t.Errorf("a dropped index answered ready = %v, %v", ready, err)
	}
}

// A build whose family is dropped while it runs (pycassa's own tests drop
// a keyspace right after indexing one of its families) stops after its
// failed walk instead of trying again every minute for as long as the
// process lives.
func TestIndexBuildOfDroppedFamilyStops(t *testing.T) {
	s := storetest.TestSchema(t, "org.apache.cassandra.dht.RandomPartitioner")
	st, o := openFresh(t, s, 864000)
	next := storetest.Clone(s, "v2")
	next.Keyspaces[storetest.Keyspace].ColumnFamilies["Standard1"].Columns = []schema.ColumnDef{
		{Name: []byte("state"), Index: &schema.IndexDef{Type: schema.IndexKeys, Name: "Standard1_state_idx"}}}
	if err := st.ChangeSchema(ctx, next, []byte("v2")); err != nil {
		t.Fatal(err)
	}
	served := (*st.cfs.Load())[cfName{storetest.Keyspace, "Standard1"}]
	if served == nil || !st.indexServed(served, []byte("state")) {
		t.Fatal("Standard1's index on state is not served after the schema change")
	}
	// The same family in a keyspace that is gone: its walk fails.
	gone := *served
	def := *served.def
	def.Keyspace = "Dropped"
	gone.def = &def
	cqlKS := keyspaceName(o.Prefix, "Dropped")
	gone.table = quote(cqlKS) + "." + quote("Standard1")
	if st.indexServed(&gone, []byte("state")) {
		t.Fatal("a family of a keyspace the store does not serve is served")
	}
	st.startBuild(cqlKS, &gone, []byte("state"))
	id := indexID(cqlKS, "Standard1", []byte("state"))
	building := true
	for deadline := time.Now().Add(2 * time.Minute); building && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		st.indexes.mu.Lock()
		building = st.indexes.building[id]
		st.indexes.mu.Unlock()
	}
	if building {
		t.Error("the build of a dropped family still runs 2 minutes after it started; want it stopped after its failed walk")
	}
}

// An indexed query reads a page of its entries and then the cells of up to
// 100 of their rows with one statement (key IN ?), not one read per entry,
// and still answers exactly the rows holding the value. The first query
// meets 250 entries, 150 of them stale, and deletes those; the second
// meets the 100 left: one request for the entries, one for the cells.
func TestIndexedKeysStatements(t *testing.T) {
	s := storetest.TestSchema(t, "Murmur3Partitioner")
	st, _ := openFresh(t, s, 864000)
	next := storetest.Clone(s, "v2")
	next.Keyspaces[storetest.Keyspace].ColumnFamilies["Standard1"].Columns = []schema.ColumnDef{
		{Name: []byte("state"), Index: &schema.IndexDef{Type: schema.IndexKeys, Name: "Standard1_state_idx"}}}
	if err := st.ChangeSchema(ctx, next, []byte("v2")); err != nil {
		t.Fatal(err)
	}
	put := func(key, value string, ts int64) engine.RowMutation {
		return engine.RowMutation{Key: key, Mutations: []engine.Mutation{{ColumnFamily: "Standard1", Name: []byte("state"), Value: []byte(value), Timestamp: ts}}}
	}
	var load, moved []engine.RowMutation
	var want []string
	for i := range 250 {
		key := fmt.Sprintf("k%03d", i)
		load = append(load, put(key, "CA", 1))
		if i%5 < 3 {
			moved = append(moved, put(key, "NY", 2))
		} else {
			want = append(want, key)
		}
	}
	storetest.Apply(t, st, load...)
	storetest.Apply(t, st, moved...)
	query := func(t *testing.T) []string {
		t.Helper()
		var keys []string
		ready := false
		var err error
		for deadline := time.Now().Add(2 * time.Minute); !ready && err == nil && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			keys, ready, err = st.IndexedKeys(ctx, storetest.Keyspace, "Standard1", []byte("state"), []byte("CA"), engine.TokenRange{StartInclusive: true}, 1000)
		}
		if err != nil || !ready {
			t.Fatalf("IndexedKeys: ready %v, %v", ready, err)
		}
		sort.Strings(keys)
		return keys
	}
	if got := query(t); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("state = CA: %d keys %v, want the %d rows holding it %v", len(got), got, len(want), want)
	}
	// A stale entry's deletion may fail on a busy node (it is only
	// logged, and the next query that meets the entry deletes it again),
	// so the query is counted until the 150 stale entries are gone: as
	// many times as a busy machine needs, for up to two minutes.
	var requests, statements float64
	for try, deadline := 0, time.Now().Add(2*time.Minute); try == 0 || (requests != 2 || statements != 2) && time.Now().Before(deadline); try++ {
		before := figures(t, st)
		got := query(t)
		d := delta(before, figures(t, st))
		requests, statements = 0, 0
		for k := range kinds {
			requests += d[`thriftd_cassandra_requests_total{kind="`+kindNames[k]+`",outcome="ok"}`]
			statements += d[`thriftd_cassandra_statements_total{kind="`+kindNames[k]+`"}`]
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("state = CA: %d keys %v, want the %d rows holding it %v", len(got), got, len(want), want)
		}
	}
	if requests != 2 || statements != 2 {
		t.Errorf("an indexed query of 100 live entries: %v requests of %v statements, want 2 of 2", requests, statements)
	}
}
