package handler19

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/rpcmetrics"
	"github.com/thriftd/thriftd/schema/catalog"
)

// capabilityService is a service on keyspace K, with a standard family C
// and a counter family N, over st (nil: LevelDB itself), its figures
// in reg.
func capabilityService(t *testing.T, st func(ldb engine.Store) engine.Store, reg *prometheus.Registry) cassandra19.Cassandra {
	t.Helper()
	ctx := context.Background()
	s, ldb := emptyStore(t)
	cat, err := catalog.New(ctx, ldb, &catalog.Start{Schema: s}, catalog.Options{ParseType: marshal.Parse})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cat.Close)
	var store engine.Store = ldb
	if st != nil {
		store = st(ldb)
	}
	svc := New(Options{Schema: cat.Current, Store: store, Changer: cat, ParseType: marshal.Parse, Metrics: rpcmetrics.New(reg)})
	c := svc.Connection()
	ks := &cassandra19.KsDef{Name: "K", StrategyClass: "SimpleStrategy", DurableWrites: true,
		StrategyOptions: map[string]string{"replication_factor": "1"}, CfDefs: []*cassandra19.CfDef{}}
	if _, err := c.SystemAddKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}
	if err := c.SetKeyspace(ctx, "K"); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"C", "N"} {
		cf := cassandra19.NewCfDef()
		cf.Keyspace, cf.Name, cf.ComparatorType = "K", name, "UTF8Type"
		if name == "N" {
			v := "CounterColumnType"
			cf.DefaultValidationClass = &v
		}
		if _, err := c.SystemAddColumnFamily(ctx, cf); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// plainStore is a store with the methods of engine.Store alone: no
// truncate, counters, compare-and-set nor index.
type plainStore struct{ engine.Store }

// The service asks the store it was given what it can do: over a store
// without truncate, counters or compare-and-set, each call that needs one
// is refused with the service's own answer. A wrapper that claimed every
// capability (as a metrics wrapper around the store once did) would make
// these checks pass whatever the store.
func TestCapabilitiesAreTheStores(t *testing.T) {
	ctx := context.Background()
	c := capabilityService(t, func(ldb engine.Store) engine.Store { return plainStore{ldb} }, prometheus.NewRegistry())
	want := func(call string, err error, why string) {
		t.Helper()
		var ire *cassandra19.InvalidRequestException
		if !errors.As(err, &ire) || ire.Why != why {
			t.Errorf("%s on a store without it: %T %v, want InvalidRequestException %q", call, err, err, why)
		}
	}
	want("truncate", c.Truncate(ctx, "C"), "the store thriftd serves from cannot truncate")
	want("add", c.Add(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "N"},
		&cassandra19.CounterColumn{Name: []byte("c"), Value: 1}, cassandra19.ConsistencyLevel_ONE),
		"the store thriftd serves from does not serve counter column families")
	ts := int64(1)
	_, err := c.Cas(ctx, []byte("k"), "C", nil, []*cassandra19.Column{{Name: []byte("c"), Value: []byte("v"), Timestamp: &ts}},
		cassandra19.ConsistencyLevel_SERIAL, cassandra19.ConsistencyLevel_QUORUM)
	want("cas", err, "this store does not serve cas")
}

// A store that has the capabilities serves them, and every call that
// reaches the store is counted once for its family, cas and counters
// included.
func TestCallsCountTheirFamilies(t *testing.T) {
	ctx := context.Background()
	reg := prometheus.NewRegistry()
	c := capabilityService(t, nil, reg)
	ts := int64(1)
	col := func(name string) *cassandra19.Column {
		return &cassandra19.Column{Name: []byte(name), Value: []byte("v"), Timestamp: &ts}
	}
	parent := &cassandra19.ColumnParent{ColumnFamily: "C"}
	one := cassandra19.ConsistencyLevel_ONE
	if err := c.Insert(ctx, []byte("k1"), parent, col("a"), one); err != nil {
		t.Fatal(err)
	}
	if err := c.BatchMutate(ctx, map[string]map[string][]*cassandra19.Mutation{
		"k2": {"C": {{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: col("a")}}}, "N": {{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{CounterColumn: &cassandra19.CounterColumn{Name: []byte("c"), Value: 2}}}}},
		"k3": {"C": {{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: col("a")}}, {ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: col("b")}}}},
	}, one); err != nil {
		t.Fatal(err)
	}
	if r, err := c.Cas(ctx, []byte("k4"), "C", nil, []*cassandra19.Column{col("a")}, cassandra19.ConsistencyLevel_SERIAL, cassandra19.ConsistencyLevel_QUORUM); err != nil || !r.Success {
		t.Fatalf("cas = %v, %v", r, err)
	}
	if err := c.Add(ctx, []byte("k1"), &cassandra19.ColumnParent{ColumnFamily: "N"}, &cassandra19.CounterColumn{Name: []byte("c"), Value: 1}, one); err != nil {
		t.Fatal(err)
	}
	pred := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 10}}
	if _, err := c.GetSlice(ctx, []byte("k1"), parent, pred, one); err != nil {
		t.Fatal(err)
	}
	if _, err := c.MultigetSlice(ctx, [][]byte{[]byte("k1"), []byte("k2"), []byte("k3")}, parent, pred, one); err != nil {
		t.Fatal(err)
	}
	if err := c.Truncate(ctx, "C"); err != nil {
		t.Fatalf("truncate on LevelDB: %v", err)
	}
	for _, tc := range []struct {
		name, cf string
		want     float64
	}{
		// insert 1, batch_mutate 2 (k2, k3), cas 1
		{rpcmetrics.MetricRowsWritten, "C", 4},
		// batch_mutate 1, add 1
		{rpcmetrics.MetricRowsWritten, "N", 2},
		{rpcmetrics.MetricWrites + "_count", "C", 3},
		{rpcmetrics.MetricWrites + "_count", "N", 2},
		// get_slice 1, multiget_slice 3
		{rpcmetrics.MetricRowsRead, "C", 4},
		{rpcmetrics.MetricReads + "_count", "C", 2},
	} {
		if got := gathered(t, reg, tc.name, "K", tc.cf); got != tc.want {
			t.Errorf("%s{K, %s} = %v, want %v", tc.name, tc.cf, got, tc.want)
		}
	}
}

// gathered is the value of a series of reg: a counter's, or a
// histogram's count (name ending in _count).
func gathered(t *testing.T, reg *prometheus.Registry, name, keyspace, cf string) float64 {
	t.Helper()
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	count := false
	if n, ok := strings.CutSuffix(name, "_count"); ok {
		name, count = n, true
	}
	for _, f := range fams {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if labelOf(m, "keyspace") != keyspace || labelOf(m, "column_family") != cf {
				continue
			}
			if count {
				return float64(m.GetHistogram().GetSampleCount())
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

func labelOf(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
