package e2e19

import (
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// TestIndexConsistency runs writers that keep changing, deleting and
// expiring an indexed column while readers query the index, and checks
// that no returned row shows a value that fails the query; once the
// writers stop, each value's answer must be exactly the rows that hold it.
func TestIndexConsistency(t *testing.T) {
	n := start(t)
	c := connect(t, n, "")
	ks := cassandra19.KsDef{Name: "Idx", StrategyClass: "SimpleStrategy", StrategyOptions: map[string]string{"replication_factor": "1"}}
	_, err := c.SystemAddKeyspace(ctx, &ks)
	must(t, err)
	must(t, c.SetKeyspace(ctx, "Idx"))
	keys := cassandra19.IndexType_KEYS
	def := cfDef("Idx", "People", "UTF8Type")
	def.ColumnMetadata = []*cassandra19.ColumnDef{{Name: []byte("state"), ValidationClass: "UTF8Type", IndexType: &keys}}
	_, err = c.SystemAddColumnFamily(ctx, def)
	must(t, err)

	const rows = 300
	values := []string{"CA", "NY", "TX", "WA"}
	parent := &cassandra19.ColumnParent{ColumnFamily: "People"}
	one := cassandra19.ConsistencyLevel_ONE
	for i := 0; i < rows; i++ {
		insert(t, c, "People", fmt.Sprintf("k%03d", i), "state", values[i%len(values)])
	}

	var stop atomic.Bool
	var writes, queries, checked, violations atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			wc := connect(t, n, "Idx")
			rnd := rand.New(rand.NewSource(seed))
			for !stop.Load() {
				key := []byte(fmt.Sprintf("k%03d", rnd.Intn(rows)))
				col := &cassandra19.Column{Name: []byte("state"), Value: []byte(values[rnd.Intn(len(values))]), Timestamp: ts()}
				var err error
				switch r := rnd.Intn(10); {
				case r == 0:
					err = wc.Remove(ctx, key, &cassandra19.ColumnPath{ColumnFamily: "People", Column: []byte("state")}, *ts(), one)
				case r == 1:
					ttl := int32(1)
					col.TTL = &ttl
					err = wc.Insert(ctx, key, parent, col, one)
				default:
					err = wc.Insert(ctx, key, parent, col, one)
				}
				if err != nil {
					errs <- err
					return
				}
				writes.Add(1)
			}
		}(int64(w))
	}
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rc := connect(t, n, "Idx")
			rnd := rand.New(rand.NewSource(seed))
			for !stop.Load() {
				v := values[rnd.Intn(len(values))]
				clause := &cassandra19.IndexClause{Expressions: []*cassandra19.IndexExpression{{ColumnName: []byte("state"), Op: cassandra19.IndexOperator_EQ, Value: []byte(v)}}, StartKey: []byte{}, Count: rows}
				got, err := rc.GetIndexedSlices(ctx, parent, clause, &cassandra19.SlicePredicate{ColumnNames: [][]byte{[]byte("state")}}, one)
				if err != nil {
					errs <- err
					return
				}
				queries.Add(1)
				for _, ks := range got {
					checked.Add(1)
					if len(ks.Columns) != 1 || string(ks.Columns[0].Column.Value) != v {
						violations.Add(1)
						t.Errorf("state = %s returned %s with %v", v, ks.Key, ks.Columns)
					}
				}
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
	time.Sleep(1100 * time.Millisecond) // the last expiring values are gone

	// Quiet: each value's answer is exactly the rows that hold it.
	all, err := c.GetRangeSlices(ctx, parent, &cassandra19.SlicePredicate{ColumnNames: [][]byte{[]byte("state")}},
		&cassandra19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: rows + 10}, one)
	must(t, err)
	want := map[string][]string{}
	for _, ks := range all {
		if len(ks.Columns) == 1 {
			v := string(ks.Columns[0].Column.Value)
			want[v] = append(want[v], string(ks.Key))
		}
	}
	for _, v := range values {
		clause := &cassandra19.IndexClause{Expressions: []*cassandra19.IndexExpression{{ColumnName: []byte("state"), Op: cassandra19.IndexOperator_EQ, Value: []byte(v)}}, StartKey: []byte{}, Count: rows}
		got, err := c.GetIndexedSlices(ctx, parent, clause, &cassandra19.SlicePredicate{ColumnNames: [][]byte{[]byte("state")}}, one)
		must(t, err)
		var gotKeys []string
		for _, ks := range got {
			gotKeys = append(gotKeys, string(ks.Key))
		}
		if fmt.Sprint(gotKeys) != fmt.Sprint(want[v]) {
			t.Errorf("state = %s after the writers stopped: %v, want %v (range order)", v, gotKeys, want[v])
		}
	}
	fmt.Printf("index consistency: %d writes, %d queries, %d rows checked, %d violations\n", writes.Load(), queries.Load(), checked.Load(), violations.Load())
}
