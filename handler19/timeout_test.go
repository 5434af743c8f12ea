package handler19

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/catalog"
	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/ldbstore"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// timeoutStore fails reads with fail, or, when fail is nil, makes a
// range read wait until its context ends; bounds says whether it bounds
// each request itself (engine.RequestTimeLimiter), as the Cassandra store.
type timeoutStore struct {
	engine.Store
	fail   error
	bounds bool
}

func (s *timeoutStore) LimitsRequestTime() bool { return s.bounds }

func (s *timeoutStore) Get(ctx context.Context, keyspace, key string, q engine.Query) (engine.Row, error) {
	if s.fail != nil {
		return engine.Row{}, s.fail
	}
	return s.Store.Get(ctx, keyspace, key, q)
}

func (s *timeoutStore) GetMany(ctx context.Context, keyspace string, keys []string, q engine.Query) ([]engine.Row, error) {
	if s.fail != nil {
		return nil, s.fail
	}
	return s.Store.GetMany(ctx, keyspace, keys, q)
}

func (s *timeoutStore) Range(ctx context.Context, keyspace string, b engine.TokenRange, q engine.Query, maxRows int) ([]engine.Row, error) {
	if s.fail != nil {
		return nil, s.fail
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(200 * time.Millisecond):
		return s.Store.Range(ctx, keyspace, b, q, maxRows)
	}
}

// timeoutService is a service on st with keyspace K and family C, a
// call deadline of timeout, logging as JSON into the returned buffer, and
// a connection on K.
func timeoutService(t *testing.T, st *timeoutStore, timeout time.Duration) (*Service, cassandra19.Cassandra, *bytes.Buffer) {
	t.Helper()
	ctx := context.Background()
	s, ldb := emptyStore(t)
	st.Store = ldb
	cat, err := catalog.New(ctx, ldb, &catalog.Start{Schema: s}, catalog.Options{ParseType: marshal.Parse})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cat.Close)
	var log bytes.Buffer
	svc := New(Options{Schema: cat.Current, Store: st, Changer: cat, ParseType: marshal.Parse, Timeout: timeout,
		Logger: slog.New(slog.NewJSONHandler(&log, nil))})
	c := svc.Connection()
	ks := &cassandra19.KsDef{Name: "K", StrategyClass: "SimpleStrategy", DurableWrites: true,
		StrategyOptions: map[string]string{"replication_factor": "1"}, CfDefs: []*cassandra19.CfDef{}}
	if _, err := c.SystemAddKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}
	if err := c.SetKeyspace(ctx, "K"); err != nil {
		t.Fatal(err)
	}
	cf := cassandra19.NewCfDef()
	cf.Keyspace, cf.Name, cf.ComparatorType = "K", "C", "UTF8Type"
	if _, err := c.SystemAddColumnFamily(ctx, cf); err != nil {
		t.Fatal(err)
	}
	return svc, c, &log
}

// timeoutLine is the one warning line logged for a TimedOutException.
func timeoutLine(t *testing.T, log *bytes.Buffer) map[string]any {
	t.Helper()
	var found map[string]any
	for _, l := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "TimedOutException" {
			if found != nil {
				t.Errorf("more than one TimedOutException line: %s", log)
			}
			found = m
		}
	}
	if found == nil {
		t.Fatalf("no TimedOutException line in the log: %s", log)
	}
	if found["level"] != "WARN" {
		t.Errorf("TimedOutException logged at %v, want WARN", found["level"])
	}
	return found
}

// TestTimedOutIsLoggedWithItsBound: a TimedOutException is logged at
// warning level with the call, keyspace and family, and the bound that
// ran out: the store's (here the node's read timeout) or the call's own
// deadline.
func TestTimedOutIsLoggedWithItsBound(t *testing.T) {
	ctx := context.Background()
	parent := &cassandra19.ColumnParent{ColumnFamily: "C"}
	pred := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 10}}

	st := &timeoutStore{}
	_, c, log := timeoutService(t, st, 0)
	st.fail = fmt.Errorf("cassandra: read t: %w", &engine.TimedOutError{Source: engine.TimeoutNode,
		Detail: "read: Operation timed out - received only 0 responses. (consistency ONE, 0 of 1 replicas answered), coordinator 127.0.0.1:9042"})
	_, err := c.GetSlice(ctx, []byte("k"), parent, pred, cassandra19.ConsistencyLevel_ONE)
	var te *cassandra19.TimedOutException
	if !errors.As(err, &te) {
		t.Fatalf("get_slice on a timed-out read: %T %v, want TimedOutException", err, err)
	}
	l := timeoutLine(t, log)
	for k, want := range map[string]string{"method": "get_slice", "keyspace": "K", "column_family": "C", "bound": engine.TimeoutNode} {
		if l[k] != want {
			t.Errorf("log %s = %v, want %q", k, l[k], want)
		}
	}
	if d, _ := l["detail"].(string); !strings.Contains(d, "consistency ONE") || !strings.Contains(d, "coordinator 127.0.0.1:9042") {
		t.Errorf("log detail = %q, want the node's answer with its consistency and coordinator", d)
	}

	st = &timeoutStore{}
	_, c, log = timeoutService(t, st, 20*time.Millisecond)
	kr := &cassandra19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: 100}
	_, err = c.GetRangeSlices(ctx, parent, pred, kr, cassandra19.ConsistencyLevel_ONE)
	if !errors.As(err, &te) {
		t.Fatalf("get_range_slices past the call's deadline: %T %v, want TimedOutException", err, err)
	}
	l = timeoutLine(t, log)
	if l["method"] != "get_range_slices" || l["column_family"] != "C" || l["bound"] != "call" {
		t.Errorf("log = %v, want get_range_slices on C, bound call", l)
	}
}

// TestRequestBoundingStoreHasNoCallDeadline: on a store that bounds each
// request itself (the Cassandra store), a range read that takes longer
// than RpcTimeoutInMillis is not cut short by the call, as a range read
// of many pages was not on Cassandra 2.1.
func TestRequestBoundingStoreHasNoCallDeadline(t *testing.T) {
	st := &timeoutStore{bounds: true}
	_, c, log := timeoutService(t, st, 20*time.Millisecond)
	parent := &cassandra19.ColumnParent{ColumnFamily: "C"}
	pred := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 10}}
	kr := &cassandra19.KeyRange{StartKey: []byte{}, EndKey: []byte{}, Count: 100}
	if _, err := c.GetRangeSlices(context.Background(), parent, pred, kr, cassandra19.ConsistencyLevel_ONE); err != nil {
		t.Errorf("get_range_slices taking 200 ms with RpcTimeoutInMillis 20 on a store that bounds its requests: %v", err)
	}
	if strings.Contains(log.String(), "TimedOutException") {
		t.Errorf("log: %s", log)
	}
}

// emptyStore is a LevelDB store of no keyspace (RandomPartitioner) in a
// temporary directory, closed when the test ends, and its schema.
func emptyStore(t *testing.T) (*schema.Schema, *ldbstore.Store) {
	t.Helper()
	p, err := dht.Lookup("RandomPartitioner")
	if err != nil {
		t.Fatal(err)
	}
	s := &schema.Schema{ClusterName: "Test", Partitioner: p, Keyspaces: map[string]*schema.Keyspace{}}
	st, err := ldbstore.Open(t.TempDir(), s, ldbstore.Options{PurgeInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return s, st
}
