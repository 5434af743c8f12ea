package e2e19

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

// createCounters makes keyspace ks with a Standard and a Super counter
// family and a family of plain columns, through the 19.x API.
func createCounters(t *testing.T, c *cassandra19.CassandraClient, ks string) {
	t.Helper()
	std := cfDef(ks, "Hits", "UTF8Type")
	std.DefaultValidationClass = thrift.StringPtr("CounterColumnType")
	sup := cfDef(ks, "SuperHits", "UTF8Type")
	sup.ColumnType = "Super"
	sup.SubcomparatorType = thrift.StringPtr("UTF8Type")
	sup.DefaultValidationClass = thrift.StringPtr("CounterColumnType")
	plain := cfDef(ks, "Plain", "UTF8Type")
	_, err := c.SystemAddKeyspace(ctx, &cassandra19.KsDef{Name: ks, StrategyClass: "SimpleStrategy",
		StrategyOptions: map[string]string{"replication_factor": "1"}, CfDefs: []*cassandra19.CfDef{std, sup, plain}})
	must(t, err)
}

func wantInvalid(t *testing.T, what string, err error, why string) {
	t.Helper()
	var ire *cassandra19.InvalidRequestException
	if !errors.As(err, &ire) || ire.Why != why {
		t.Errorf("%s: got %v; want InvalidRequestException(%s)", what, err, why)
	}
}

// Counters through the real binary: add, remove_counter and batch
// counter mutations, read back through every read call as CounterColumn
// and CounterSuperColumn, and the real server's refusals.
func TestCounters(t *testing.T) {
	n := start(t)
	c := connect(t, n, "")
	createCounters(t, c.CassandraClient, "Counted")
	must(t, c.SetKeyspace(ctx, "Counted"))
	one := cassandra19.ConsistencyLevel_ONE
	hits := &cassandra19.ColumnParent{ColumnFamily: "Hits"}
	cc := func(name string, v int64) *cassandra19.CounterColumn {
		return &cassandra19.CounterColumn{Name: []byte(name), Value: v}
	}
	must(t, c.Add(ctx, []byte("k1"), hits, cc("a", 5), one))
	must(t, c.Add(ctx, []byte("k1"), hits, cc("a", -2), one))
	must(t, c.Add(ctx, []byte("k1"), hits, cc("b", 10), one))
	must(t, c.BatchMutate(ctx, map[string]map[string][]*cassandra19.Mutation{
		"k1": {"Hits": {{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{CounterColumn: cc("b", 1)}}}},
		"k2": {
			"Hits":      {{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{CounterColumn: cc("a", 7)}}},
			"SuperHits": {{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{CounterSuperColumn: &cassandra19.CounterSuperColumn{Name: []byte("day"), Columns: []*cassandra19.CounterColumn{cc("x", 3), cc("y", 4)}}}}},
		},
	}, one))
	must(t, c.Add(ctx, []byte("k2"), &cassandra19.ColumnParent{ColumnFamily: "SuperHits", SuperColumn: []byte("day")}, cc("x", 1), one))

	got, err := c.Get(ctx, []byte("k1"), &cassandra19.ColumnPath{ColumnFamily: "Hits", Column: []byte("a")}, one)
	must(t, err)
	if got.CounterColumn == nil || got.CounterColumn.Value != 3 || got.Column != nil {
		t.Fatalf("get k1/a = %v; want CounterColumn 3", got)
	}
	all := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 100}}
	slice, err := c.GetSlice(ctx, []byte("k1"), hits, all, one)
	must(t, err)
	if fmt.Sprint(counters(slice)) != "[a=3 b=11]" {
		t.Errorf("get_slice k1 = %v", counters(slice))
	}
	multi, err := c.MultigetSlice(ctx, [][]byte{[]byte("k1"), []byte("k2")}, hits, all, one)
	must(t, err)
	if fmt.Sprint(counters(multi["k1"]), counters(multi["k2"])) != "[a=3 b=11] [a=7]" {
		t.Errorf("multiget_slice = %v %v", counters(multi["k1"]), counters(multi["k2"]))
	}
	sup, err := c.Get(ctx, []byte("k2"), &cassandra19.ColumnPath{ColumnFamily: "SuperHits", SuperColumn: []byte("day")}, one)
	must(t, err)
	if sup.CounterSuperColumn == nil || fmt.Sprint(counterCols(sup.CounterSuperColumn.Columns)) != "[x=4 y=4]" {
		t.Errorf("get of the counter super column = %v", sup)
	}
	count, err := c.GetCount(ctx, []byte("k1"), hits, all, one)
	must(t, err)
	if count != 2 {
		t.Errorf("get_count = %d, want 2", count)
	}
	counts, err := c.MultigetCount(ctx, [][]byte{[]byte("k1"), []byte("k2")}, hits, all, one)
	must(t, err)
	if counts["k1"] != 2 || counts["k2"] != 1 {
		t.Errorf("multiget_count = %v", counts)
	}
	kr := &cassandra19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: 100}
	rows, err := c.GetRangeSlices(ctx, hits, all, kr, one)
	must(t, err)
	paged, err := c.GetPagedSlice(ctx, "Hits", kr, []byte{}, one)
	must(t, err)
	for _, rs := range [][]*cassandra19.KeySlice{rows, paged} {
		byKey := map[string]string{}
		for _, r := range rs {
			byKey[string(r.Key)] = fmt.Sprint(counters(r.Columns))
		}
		if byKey["k1"] != "[a=3 b=11]" || byKey["k2"] != "[a=7]" {
			t.Errorf("range read = %v", byKey)
		}
	}

	// remove_counter, then an add starts the counter again from zero.
	must(t, c.RemoveCounter(ctx, []byte("k1"), &cassandra19.ColumnPath{ColumnFamily: "Hits", Column: []byte("a")}, one))
	_, err = c.Get(ctx, []byte("k1"), &cassandra19.ColumnPath{ColumnFamily: "Hits", Column: []byte("a")}, one)
	var nfe *cassandra19.NotFoundException
	if !errors.As(err, &nfe) {
		t.Errorf("get of a removed counter: %v; want NotFoundException", err)
	}
	// On the embedded store an add after remove_counter starts the
	// counter again from zero (docs/api19.md); on the Cassandra store it
	// is Cassandra's undefined case, and only the add's success is checked.
	must(t, c.Add(ctx, []byte("k1"), hits, cc("a", 2), one))
	if testenv.Backend() != testenv.CassandraBackend {
		got, err = c.Get(ctx, []byte("k1"), &cassandra19.ColumnPath{ColumnFamily: "Hits", Column: []byte("a")}, one)
		must(t, err)
		if got.CounterColumn.Value != 2 {
			t.Errorf("an add after remove_counter = %d, want 2", got.CounterColumn.Value)
		}
	}
	// A batch deletion in a counter family needs no timestamp.
	must(t, c.BatchMutate(ctx, map[string]map[string][]*cassandra19.Mutation{"k1": {"Hits": {{Deletion: &cassandra19.Deletion{
		Predicate: &cassandra19.SlicePredicate{ColumnNames: [][]byte{[]byte("b")}}}}}}}, one))
	slice, err = c.GetSlice(ctx, []byte("k1"), hits, all, one)
	must(t, err)
	want := "[a=2]"
	if testenv.Backend() == testenv.CassandraBackend && len(slice) == 0 {
		want = "[]" // a stayed removed: Cassandra's undefined case
	}
	if fmt.Sprint(counters(slice)) != want {
		t.Errorf("after the batch deletion: %v", counters(slice))
	}

	// The 0.6 API has no counters: it reads a counter as its 8-byte
	// total, and a write into a counter family is refused.
	c06 := n.Client(false)
	defer c06.Close()
	plain, err := c06.GetSlice(ctx, "Counted", "k1", &cassandra.ColumnParent{ColumnFamily: "Hits"},
		&cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 10}}, cassandra.ConsistencyLevel_ONE)
	must(t, err)
	if len(plain) == 0 || len(plain[0].Column.Value) != 8 {
		t.Errorf("the 0.6 get_slice of a counter family: %v", plain)
	}
	err = c06.Insert(ctx, "Counted", "k1", &cassandra.ColumnPath{ColumnFamily: "Hits", Column: []byte("a")}, []byte("v"), 1, cassandra.ConsistencyLevel_ONE)
	var ire06 *cassandra.InvalidRequestException
	if !errors.As(err, &ire06) || ire06.Why != "invalid operation for commutative columnfamily Hits" {
		t.Errorf("a 0.6 insert into a counter family: %v", err)
	}

	// The refusals, with 1.2.19's messages.
	wantInvalid(t, "add to a plain family", c.Add(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "Plain"}, cc("a", 1), one),
		"invalid operation for non commutative columnfamily Plain")
	wantInvalid(t, "remove_counter of a plain family", c.RemoveCounter(ctx, []byte("k"), &cassandra19.ColumnPath{ColumnFamily: "Plain", Column: []byte("a")}, one),
		"invalid operation for non commutative columnfamily Plain")
	wantInvalid(t, "insert into a counter family", c.Insert(ctx, []byte("k"), hits, &cassandra19.Column{Name: []byte("a"), Value: []byte("v"), Timestamp: ts()}, one),
		"invalid operation for commutative columnfamily Hits")
	wantInvalid(t, "add at ANY", c.Add(ctx, []byte("k"), hits, cc("a", 1), cassandra19.ConsistencyLevel_ANY),
		"Consistency level ANY is not yet supported for counter columnfamily Hits")
	wantInvalid(t, "a column with a TTL into a counter family", c.BatchMutate(ctx, map[string]map[string][]*cassandra19.Mutation{"k": {"Hits": {{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{
		Column: &cassandra19.Column{Name: []byte("a"), Value: []byte("v"), Timestamp: ts(), TTL: thrift.Int32Ptr(10)}}}}}}, one),
		"invalid operation for commutative columnfamily Hits")
	wantInvalid(t, "a counter into a plain family", c.BatchMutate(ctx, map[string]map[string][]*cassandra19.Mutation{"k": {"Plain": {{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{CounterColumn: cc("a", 1)}}}}}, one),
		"invalid operation for non commutative columnfamily Plain")
	wantInvalid(t, "counters in an atomic batch", c.AtomicBatchMutate(ctx, map[string]map[string][]*cassandra19.Mutation{"k": {"Hits": {{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{CounterColumn: cc("a", 1)}}}}}, one),
		"Counter mutations are not allowed in atomic batches")
	wantInvalid(t, "add without the super column", c.Add(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "SuperHits"}, cc("a", 1), one),
		"missing mandatory super column name for super CF SuperHits")
}

func counterCols(cols []*cassandra19.CounterColumn) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = fmt.Sprintf("%s=%d", c.Name, c.Value)
	}
	return out
}

func counters(cs []*cassandra19.ColumnOrSuperColumn) []string {
	var out []string
	for _, c := range cs {
		if c.CounterColumn == nil {
			out = append(out, fmt.Sprintf("not a counter: %v", c))
			continue
		}
		out = append(out, fmt.Sprintf("%s=%d", c.CounterColumn.Name, c.CounterColumn.Value))
	}
	return out
}

// 32 connections adding to the same counters end at the exact sum.
func TestConcurrentCounterAdds(t *testing.T) {
	n := start(t)
	c := connect(t, n, "")
	createCounters(t, c.CassandraClient, "Contended")
	const conns, adds = 32, 100
	var wg sync.WaitGroup
	var mu sync.Mutex
	acked := 0
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cw := connect(t, n, "Contended")
			defer cw.Close()
			for i := range adds {
				err := cw.BatchMutate(ctx, map[string]map[string][]*cassandra19.Mutation{"hot": {"Hits": {
					{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{CounterColumn: &cassandra19.CounterColumn{Name: []byte("sum"), Value: int64(w + 1)}}},
					{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{CounterColumn: &cassandra19.CounterColumn{Name: []byte(fmt.Sprintf("c%d", i%4)), Value: 1}}},
				}}}, cassandra19.ConsistencyLevel_ONE)
				if err == nil {
					err = cw.Add(ctx, []byte("hot"), &cassandra19.ColumnParent{ColumnFamily: "Hits"}, &cassandra19.CounterColumn{Name: []byte("adds"), Value: 1}, cassandra19.ConsistencyLevel_ONE)
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				acked += 3
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	must(t, c.SetKeyspace(ctx, "Contended"))
	slice, err := c.GetSlice(ctx, []byte("hot"), &cassandra19.ColumnParent{ColumnFamily: "Hits"},
		&cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 100}}, cassandra19.ConsistencyLevel_ONE)
	must(t, err)
	want := fmt.Sprint([]string{fmt.Sprintf("adds=%d", conns*adds), "c0=800", "c1=800", "c2=800", "c3=800", fmt.Sprintf("sum=%d", adds*conns*(conns+1)/2)})
	if got := fmt.Sprint(counters(slice)); got != want {
		t.Errorf("totals %s; want %s", got, want)
	}
	t.Logf("%d counter adds acknowledged over %d connections; totals %v (expected %s)", acked, conns, counters(slice), want)
}
