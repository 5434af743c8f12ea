package faults

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

const (
	batchCF   = "Batches"
	counterCF = "Counters"
	indexCF   = "Indexed"
)

var quorum = cassandra19.ConsistencyLevel_QUORUM

func cfDef(name, comparator string) *cassandra19.CfDef {
	d := cassandra19.NewCfDef()
	d.Keyspace, d.Name, d.ComparatorType = ks, name, comparator
	return d
}

// keyspaceDef is the suite's keyspace: replication factor 3 on ring3, with
// durable writes. A KsDef literal leaves DurableWrites false, and Go's
// Thrift code sends that false (only the IDL's default, true, is left off
// the wire): thriftd, as 1.2 did, then creates the keyspace with
// durable_writes = false, its writes skip the nodes' commit logs, and a
// killed node loses every write it held in memory.
func keyspaceDef(rf string) *cassandra19.KsDef {
	counters := cfDef(counterCF, "UTF8Type")
	counters.DefaultValidationClass = thrift.StringPtr("CounterColumnType")
	keys := cassandra19.IndexType_KEYS
	indexed := cfDef(indexCF, "UTF8Type")
	indexed.ColumnMetadata = []*cassandra19.ColumnDef{{Name: []byte("state"), ValidationClass: "UTF8Type", IndexType: &keys}}
	return &cassandra19.KsDef{Name: ks, StrategyClass: "SimpleStrategy", DurableWrites: true,
		StrategyOptions: map[string]string{"replication_factor": rf},
		CfDefs:          []*cassandra19.CfDef{cfDef(regCF, "UTF8Type"), cfDef(batchCF, "UTF8Type"), counters, indexed}}
}

func allColumns() *cassandra19.SlicePredicate {
	return &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 1000}}
}

func now() *int64 {
	v := time.Now().UnixMicro()
	return &v
}

// batches writes batch_mutate calls of three rows at QUORUM; every row of
// an acknowledged batch must be read back once the faults heal.
type batches struct {
	mu     sync.Mutex
	acked  []string
	unsure int // rows of batches whose outcome is unknown
	calls  tally
}

const rowsPerBatch = 3

func (w *batches) worker(d *thriftd, id int, stop <-chan struct{}, max int) {
	c := d.dial(stop, ks)
	for seq := 0; seq < max && c != nil; seq++ {
		select {
		case <-stop:
			c.Close()
			return
		default:
		}
		m := map[string]map[string][]*cassandra19.Mutation{}
		var keys []string
		for j := 0; j < rowsPerBatch; j++ {
			key := fmt.Sprintf("b%d-%06d-%d", id, seq, j)
			keys = append(keys, key)
			col := &cassandra19.Column{Name: []byte("c"), Value: []byte(key), Timestamp: now()}
			m[key] = map[string][]*cassandra19.Mutation{batchCF: {{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: col}}}}
		}
		err := c.BatchMutate(ctx, m, quorum)
		o := classify(err)
		w.calls.add(o, err)
		w.mu.Lock()
		switch o {
		case ok:
			w.acked = append(w.acked, keys...)
		case failed:
		default:
			w.unsure += len(keys)
		}
		w.mu.Unlock()
		if o == lostConn || o == otherFailed {
			c.Close()
			c = d.dial(stop, ks)
		}
	}
	if c != nil {
		c.Close()
	}
}

// check reads every acknowledged row at QUORUM and returns those missing.
func (w *batches) check(c *cassandra19.CassandraClient) (missing []string, err error) {
	w.mu.Lock()
	acked := append([]string(nil), w.acked...)
	w.mu.Unlock()
	for i := 0; i < len(acked); i += 200 {
		chunk := acked[i:min(i+200, len(acked))]
		var keys [][]byte
		for _, k := range chunk {
			keys = append(keys, []byte(k))
		}
		got, err := c.MultigetSlice(ctx, keys, &cassandra19.ColumnParent{ColumnFamily: batchCF}, allColumns(), quorum)
		if err != nil {
			return nil, err
		}
		for _, k := range chunk {
			cols := got[k]
			if len(cols) != 1 || string(cols[0].Column.Value) != k {
				missing = append(missing, k)
			}
		}
	}
	return missing, nil
}

// counters adds at QUORUM to a few counters: an acknowledged add counts
// once, a timed-out one zero times or once.
type counters struct {
	keys  int
	mu    sync.Mutex
	acked []int64 // per key: the sum of acknowledged adds
	maybe []int64 // per key: the sum of adds of unknown outcome
	calls tally
}

func counterKey(k int) []byte { return []byte(fmt.Sprintf("cnt%d", k)) }

func (w *counters) worker(d *thriftd, id int, stop <-chan struct{}, max int) {
	rng := rand.New(rand.NewPCG(uint64(id), uint64(time.Now().UnixNano())))
	c := d.dial(stop, ks)
	for i := 0; i < max && c != nil; i++ {
		select {
		case <-stop:
			c.Close()
			return
		default:
		}
		k := rng.IntN(w.keys)
		delta := int64(1 + rng.IntN(5))
		err := c.Add(ctx, counterKey(k), &cassandra19.ColumnParent{ColumnFamily: counterCF},
			&cassandra19.CounterColumn{Name: []byte("n"), Value: delta}, quorum)
		o := classify(err)
		w.calls.add(o, err)
		w.mu.Lock()
		switch o {
		case ok:
			w.acked[k] += delta
		case failed:
		default:
			w.maybe[k] += delta
		}
		w.mu.Unlock()
		if o == lostConn || o == otherFailed {
			c.Close()
			c = d.dial(stop, ks)
		}
	}
	if c != nil {
		c.Close()
	}
}

// read returns counter k's value at QUORUM.
func (w *counters) read(c *cassandra19.CassandraClient, k int) (int64, error) {
	got, err := c.Get(ctx, counterKey(k), &cassandra19.ColumnPath{ColumnFamily: counterCF, Column: []byte("n")}, quorum)
	if err != nil {
		return 0, err
	}
	return got.CounterColumn.Value, nil
}

// indexes sets the KEYS-indexed column "state" of a few rows at QUORUM.
type indexes struct {
	rows  int
	calls tally
}

var states = []string{"CA", "NY", "TX", "WA"}

func indexRow(i int) []byte { return []byte(fmt.Sprintf("p%03d", i)) }

func (w *indexes) worker(d *thriftd, id int, stop <-chan struct{}, max int) {
	rng := rand.New(rand.NewPCG(uint64(id)+100, uint64(time.Now().UnixNano())))
	c := d.dial(stop, ks)
	parent := &cassandra19.ColumnParent{ColumnFamily: indexCF}
	for i := 0; i < max && c != nil; i++ {
		select {
		case <-stop:
			c.Close()
			return
		default:
		}
		key := indexRow(rng.IntN(w.rows))
		var err error
		if rng.IntN(8) == 0 {
			err = c.Remove(ctx, key, &cassandra19.ColumnPath{ColumnFamily: indexCF, Column: []byte("state")}, *now(), quorum)
		} else {
			col := &cassandra19.Column{Name: []byte("state"), Value: []byte(states[rng.IntN(len(states))]), Timestamp: now()}
			err = c.Insert(ctx, key, parent, col, quorum)
		}
		o := classify(err)
		w.calls.add(o, err)
		if o == lostConn || o == otherFailed {
			c.Close()
			c = d.dial(stop, ks)
		}
	}
	if c != nil {
		c.Close()
	}
}

// check compares each value's indexed query with a scan filtered by hand,
// through client c; it returns the differences.
func (w *indexes) check(c *cassandra19.CassandraClient) ([]string, error) {
	parent := &cassandra19.ColumnParent{ColumnFamily: indexCF}
	scan, err := c.GetRangeSlices(ctx, parent, allColumns(), &cassandra19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: 10000}, quorum)
	if err != nil {
		return nil, fmt.Errorf("get_range_slices: %w", err)
	}
	var diffs []string
	for _, v := range states {
		var want []string
		for _, ks := range scan {
			for _, col := range ks.Columns {
				if string(col.Column.Name) == "state" && string(col.Column.Value) == v {
					want = append(want, string(ks.Key))
				}
			}
		}
		clause := &cassandra19.IndexClause{
			Expressions: []*cassandra19.IndexExpression{{ColumnName: []byte("state"), Op: cassandra19.IndexOperator_EQ, Value: []byte(v)}},
			StartKey:    []byte{}, Count: 10000}
		res, err := c.GetIndexedSlices(ctx, parent, clause, allColumns(), quorum)
		if err != nil {
			return nil, fmt.Errorf("get_indexed_slices %s: %w", v, err)
		}
		var got []string
		for _, ks := range res {
			got = append(got, string(ks.Key))
		}
		sort.Strings(want)
		sort.Strings(got)
		if strings.Join(want, ",") != strings.Join(got, ",") {
			diffs = append(diffs, fmt.Sprintf("state=%s: index %v, scan %v", v, got, want))
		}
	}
	return diffs, nil
}

// schemaChange is one system_add_column_family sent during a fault.
type schemaChange struct {
	name    string
	fault   string
	err     error
	took    time.Duration
	visible [2]time.Duration // when each thriftd first listed it, after the call returned; -1: never
}

// addFamily creates family name through d and records the outcome.
func addFamily(d *thriftd, name, fault string) *schemaChange {
	sc := &schemaChange{name: name, fault: fault}
	addr, _ := d.address()
	began := time.Now()
	c, err := dialOnce(addr)
	if err != nil {
		sc.err = err
		return sc
	}
	defer c.Close()
	_, sc.err = c.SystemAddColumnFamily(ctx, cfDef(name, "UTF8Type"))
	sc.took = time.Since(began)
	return sc
}

// lists reports whether thriftd d lists family name in the keyspace.
func lists(d *thriftd, name string) (bool, error) {
	addr, up := d.address()
	if !up {
		return false, fmt.Errorf("%s is down", d.name)
	}
	c, err := dialOnce(addr)
	if err != nil {
		return false, err
	}
	defer c.Close()
	def, err := c.DescribeKeyspace(ctx, ks)
	if err != nil {
		return false, err
	}
	for _, cf := range def.CfDefs {
		if cf.Name == name {
			return true, nil
		}
	}
	return false, nil
}
