package storetest

import (
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/schema"
)

// RunIndexes runs the contract tests of engine.Indexer, each as a subtest
// on a fresh store, which must implement engine.SchemaStore,
// engine.Truncater and engine.Indexer. The restart test needs h.Reopen.
func RunIndexes(t *testing.T, h Harness) {
	tests := []struct {
		name string
		fn   func(*testing.T, Harness)
	}{
		{"AnswersEveryRowHoldingTheValue", testIndexAnswers},
		{"FollowsUpdatesDeletionsAndExpiry", testIndexFollowsChanges},
		{"IsBuiltOverExistingRows", testIndexBuiltLater},
		{"DroppedAndDeclaredAgain", testIndexDroppedAndAgain},
		{"Truncate", testIndexTruncate},
		{"SurvivesReopen", testIndexReopen},
		{"MissesNoRowAfterConcurrentWrites", testIndexConcurrentWriters},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, h)
		})
	}
}

// withIndex returns s with a KEYS index on column "state" of Standard1
// (and none when on is false).
func withIndex(s *schema.Schema, version string, on bool) *schema.Schema {
	next := Clone(s, version)
	cf := next.Keyspaces[Keyspace].ColumnFamilies["Standard1"]
	cf.Columns = nil
	if on {
		cf.Columns = []schema.ColumnDef{{Name: []byte("state"), Index: &schema.IndexDef{Type: schema.IndexKeys, Name: "Standard1_state_idx"}}}
	}
	return next
}

// indexed returns every key IndexedKeys answers for value over the whole
// ring, a page of max at a time, waiting until the index is ready.
func indexed(t *testing.T, st engine.Store, value string, max int) []string {
	t.Helper()
	ix, ok := st.(engine.Indexer)
	if !ok {
		t.Fatalf("%T does not implement engine.Indexer", st)
	}
	deadline := time.Now().Add(30 * time.Second)
	var out []string
	b := engine.TokenRange{StartInclusive: true}
	part := TestSchema(t, "OrderPreservingPartitioner").Partitioner
	for {
		keys, ready, err := ix.IndexedKeys(ctx, Keyspace, "Standard1", []byte("state"), []byte(value), b, max)
		if err != nil {
			t.Fatal(err)
		}
		if !ready {
			if time.Now().After(deadline) {
				t.Fatal("the index is not ready after 30 s")
			}
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if len(keys) > max {
			t.Fatalf("IndexedKeys answered %d keys, more than max %d", len(keys), max)
		}
		out = append(out, keys...)
		if len(keys) < max {
			return out
		}
		b = engine.TokenRange{Start: part.Token(keys[len(keys)-1])}
	}
}

func expectKeys(t *testing.T, st engine.Store, value string, want ...string) {
	t.Helper()
	for _, max := range []int{1, 2, 1000} {
		got := indexed(t, st, value, max)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("IndexedKeys(state = %s, pages of %d) = %v, want %v", value, max, got, want)
		}
	}
	if _, ok := st.(engine.IndexReader); ok {
		for _, max := range []int{1, 2, 1000} {
			expectIndexedRows(t, st, value, max, want)
		}
	}
}

// expectIndexedRows checks that IndexedRows, a page of max at a time,
// answers the rows want (IndexedKeys' answer), each as Get reads them:
// the filter's columns, and the row's first two columns.
func expectIndexedRows(t *testing.T, st engine.Store, value string, max int, want []string) {
	t.Helper()
	ir := st.(engine.IndexReader)
	filter := [][]byte{[]byte("state"), []byte("other")}
	q := engine.Query{ColumnFamily: "Standard1", Predicate: All(2)}
	part := TestSchema(t, "OrderPreservingPartitioner").Partitioner
	b := engine.TokenRange{StartInclusive: true}
	var got []string
	for {
		rows, ready, err := ir.IndexedRows(ctx, Keyspace, "Standard1", []byte("state"), []byte(value), b, max, filter, q)
		if err != nil || !ready {
			t.Fatalf("IndexedRows(state = %s): ready %v, %v", value, ready, err)
		}
		if len(rows) > max {
			t.Fatalf("IndexedRows answered %d rows, more than max %d", len(rows), max)
		}
		for _, r := range rows {
			got = append(got, r.Key)
			Expect(t, Render(r.Row), Get(t, st, "Standard1", r.Key, nil, q.Predicate))
			Expect(t, Render(engine.Row{Key: r.Key, Columns: r.Filter}),
				Get(t, st, "Standard1", r.Key, nil, engine.Predicate{Names: [][]byte{[]byte("other"), []byte("state")}, Count: 2}))
		}
		if len(rows) < max {
			break
		}
		b = engine.TokenRange{Start: part.Token(rows[len(rows)-1].Key)}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("IndexedRows(state = %s, pages of %d) = %v, want %v", value, max, got, want)
	}
}

func testIndexAnswers(t *testing.T, h Harness) {
	st, s := h.schemaStore(t)
	change(t, st, withIndex(s, "v2", true))
	Apply(t, st, Put("Standard1", "k3", "state", "CA", 1), Put("Standard1", "k1", "state", "CA", 1),
		Put("Standard1", "k2", "state", "NY", 1), Put("Standard1", "k4", "other", "CA", 1), Put("Standard2", "k5", "state", "CA", 1))
	expectKeys(t, st, "CA", "k1", "k3")
	expectKeys(t, st, "NY", "k2")
	expectKeys(t, st, "TX")
	// Token ranges: from a token, exclusive or inclusive, to an end token.
	ix := st.(engine.Indexer)
	part := s.Partitioner
	keys, _, err := ix.IndexedKeys(ctx, Keyspace, "Standard1", []byte("state"), []byte("CA"), engine.TokenRange{Start: part.Token("k1")}, 10)
	if err != nil || fmt.Sprint(keys) != "[k3]" {
		t.Errorf("after k1, exclusive: %v %v, want [k3]", keys, err)
	}
	keys, _, err = ix.IndexedKeys(ctx, Keyspace, "Standard1", []byte("state"), []byte("CA"), engine.TokenRange{Start: part.Token("k1"), StartInclusive: true, End: part.Token("k2")}, 10)
	if err != nil || fmt.Sprint(keys) != "[k1]" {
		t.Errorf("k1 to k2: %v %v, want [k1]", keys, err)
	}
	// A column without an index is not ready: the caller scans.
	if _, ready, err := ix.IndexedKeys(ctx, Keyspace, "Standard1", []byte("other"), []byte("CA"), engine.TokenRange{}, 10); err != nil || ready {
		t.Errorf("an unindexed column answered ready = %v, %v", ready, err)
	}
}

func testIndexFollowsChanges(t *testing.T, h Harness) {
	st, s := h.schemaStore(t)
	change(t, st, withIndex(s, "v2", true))
	for i := 0; i < 6; i++ {
		Apply(t, st, Put("Standard1", fmt.Sprintf("k%d", i), "state", "CA", 10))
	}
	Apply(t, st, Put("Standard1", "k0", "state", "NY", 11))        // overwritten
	Apply(t, st, Put("Standard1", "k1", "state", "NY", 9))         // an older write loses
	Apply(t, st, Del("Standard1", "k2", nil, []byte("state"), 11)) // column deleted
	Apply(t, st, Del("Standard1", "k3", nil, nil, 11))             // row deleted
	Apply(t, st, Del("Standard1", "k5", nil, nil, 9))              // an older row deletion misses
	Apply(t, st, Put("Standard1", "k3", "state", "CA", 12))        // back after its deletion
	Apply(t, st, PutTTL("Standard1", "k4", "state", "CA", 11, shortTTL))
	// One read at once, while k4 surely lives on a real clock too.
	if got := indexed(t, st, "CA", 1000); fmt.Sprint(got) != "[k1 k3 k4 k5]" {
		t.Errorf("IndexedKeys(state = CA) before expiry = %v, want [k1 k3 k4 k5]", got)
	}
	expectKeys(t, st, "NY", "k0")
	h.wait(t, expireWait)
	expectKeys(t, st, "CA", "k1", "k3", "k5")
}

func testIndexBuiltLater(t *testing.T, h Harness) {
	st, s := h.schemaStore(t)
	var want []string
	for i := 0; i < 2500; i++ {
		v := []string{"CA", "NY", "TX"}[i%3]
		key := fmt.Sprintf("k%05d", i)
		Apply(t, st, Put("Standard1", key, "state", v, 1))
		if v == "NY" {
			want = append(want, key)
		}
	}
	change(t, st, withIndex(s, "v2", true))
	Apply(t, st, Put("Standard1", "z", "state", "NY", 1)) // while it builds
	want = append(want, "z")
	if got := indexed(t, st, "NY", 1000); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("built index answers %d keys, want %d", len(got), len(want))
	}
}

func testIndexDroppedAndAgain(t *testing.T, h Harness) {
	st, s := h.schemaStore(t)
	change(t, st, withIndex(s, "v2", true))
	Apply(t, st, Put("Standard1", "k1", "state", "CA", 1), Put("Standard1", "k2", "state", "CA", 1))
	expectKeys(t, st, "CA", "k1", "k2")
	change(t, st, withIndex(s, "v3", false))
	if _, ready, err := st.(engine.Indexer).IndexedKeys(ctx, Keyspace, "Standard1", []byte("state"), []byte("CA"), engine.TokenRange{}, 10); err != nil || ready {
		t.Errorf("a dropped index answered ready = %v, %v", ready, err)
	}
	Apply(t, st, Put("Standard1", "k1", "state", "NY", 2), Put("Standard1", "k3", "state", "CA", 2))
	change(t, st, withIndex(s, "v4", true))
	expectKeys(t, st, "CA", "k2", "k3")
	expectKeys(t, st, "NY", "k1")
}

func testIndexTruncate(t *testing.T, h Harness) {
	st, s := h.schemaStore(t)
	change(t, st, withIndex(s, "v2", true))
	Apply(t, st, Put("Standard1", "k1", "state", "CA", 1))
	expectKeys(t, st, "CA", "k1")
	if err := st.(engine.Truncater).Truncate(ctx, Keyspace, "Standard1"); err != nil {
		t.Fatal(err)
	}
	expectKeys(t, st, "CA")
	Apply(t, st, Put("Standard1", "k2", "state", "CA", 2))
	expectKeys(t, st, "CA", "k2")
}

func testIndexReopen(t *testing.T, h Harness) {
	if h.Reopen == nil {
		t.Fatal("the harness cannot reopen a store")
	}
	st, s := h.schemaStore(t)
	next := withIndex(s, "v2", true)
	change(t, st, next)
	Apply(t, st, Put("Standard1", "k1", "state", "CA", 1), Put("Standard1", "k2", "state", "NY", 1))
	expectKeys(t, st, "CA", "k1")
	st = h.Reopen(t, st, next)
	expectKeys(t, st, "CA", "k1")
	Apply(t, st, Put("Standard1", "k2", "state", "CA", 2))
	expectKeys(t, st, "CA", "k1", "k2")
}

// testIndexConcurrentWriters races writers of one indexed column, with
// timestamps that often tie, expiring values and deletions, against
// queries of the index, on a few rows so that queries meet rows being
// written. Once the writers stop and the expiring values are gone, each
// value's answer must be exactly the rows that hold it.
func testIndexConcurrentWriters(t *testing.T, h Harness) {
	st, s := h.schemaStore(t)
	change(t, st, withIndex(s, "v2", true))
	ix := st.(engine.Indexer)
	const rows = 12
	values := []string{"CA", "NY", "TX", "WA"}
	// Milliseconds as timestamps: writers of one row often tie.
	now := func() int64 { return time.Now().UnixMilli() }
	var stop atomic.Bool
	var writes, queries atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rnd := rand.New(rand.NewSource(seed))
			for !stop.Load() {
				key := fmt.Sprintf("k%02d", rnd.Intn(rows))
				r := Put("Standard1", key, "state", values[rnd.Intn(len(values))], now())
				switch n := rnd.Intn(20); {
				case n < 2:
					r = Del("Standard1", key, nil, []byte("state"), now())
				case n == 2:
					r = Del("Standard1", key, nil, nil, now())
				case n < 6:
					r.Mutations[0].TTL = 1
				}
				if err := st.Apply(ctx, Keyspace, []engine.RowMutation{r}); err != nil {
					errs <- err
					return
				}
				writes.Add(1)
			}
		}(int64(w))
	}
	for r := 0; r < 3; r++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rnd := rand.New(rand.NewSource(seed))
			for !stop.Load() {
				v := values[rnd.Intn(len(values))]
				if _, _, err := ix.IndexedKeys(ctx, Keyspace, "Standard1", []byte("state"), []byte(v), engine.TokenRange{StartInclusive: true}, rows); err != nil {
					errs <- err
					return
				}
				queries.Add(1)
			}
		}(int64(100 + r))
	}
	time.Sleep(3 * time.Second)
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	h.wait(t, expireWait)

	want := map[string][]string{}
	for i := 0; i < rows; i++ {
		key := fmt.Sprintf("k%02d", i)
		row, err := st.Get(ctx, Keyspace, key, engine.Query{ColumnFamily: "Standard1", Predicate: engine.Predicate{Names: [][]byte{[]byte("state")}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(row.Columns) == 1 {
			v := string(row.Columns[0].Value)
			want[v] = append(want[v], key)
		}
	}
	for _, v := range values {
		expectKeys(t, st, v, want[v]...)
	}
	t.Logf("%d writes, %d queries", writes.Load(), queries.Load())
}
