package handler

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra"
)

func TestToThrift(t *testing.T) {
	tests := []struct {
		err    error
		want   error
		wantOK bool
	}{
		{nil, nil, true},
		{invalid("bad %d", 1), &cassandra.InvalidRequestException{Why: "bad 1"}, true},
		{fmt.Errorf("wrapped: %w", &InvalidRequest{Why: "w"}), &cassandra.InvalidRequestException{Why: "w"}, true},
		{errNotFound, cassandra.NewNotFoundException(), true},
		{&AuthenticationError{Why: "a"}, &cassandra.AuthenticationException{Why: "a"}, true},
		{&AuthorizationError{Why: "z"}, &cassandra.AuthorizationException{Why: "z"}, true},
		{context.DeadlineExceeded, cassandra.NewTimedOutException(), true},
		{fmt.Errorf("cluster: Cannot achieve consistency level QUORUM: %w", engine.ErrUnavailable), cassandra.NewUnavailableException(), true},
		{fmt.Errorf("cluster: Operation timed out: %w", engine.ErrTimedOut), cassandra.NewTimedOutException(), true},
		{engine.ErrClosed, nil, false},
		{errors.New("disk on fire"), nil, false},
	}
	for _, tt := range tests {
		got, ok := toThrift(tt.err)
		if ok != tt.wantOK || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("toThrift(%v) = %#v, %v; want %#v, %v", tt.err, got, ok, tt.want, tt.wantOK)
		}
	}
}

// TestStorageFailureIsInternal checks that a failing store gives the client
// a plain error (which the processor sends as INTERNAL_ERROR) that reveals
// nothing, and the log the method and the cause.
func TestStorageFailureIsInternal(t *testing.T) {
	e := newEnv(t)
	must(t, e.store.Close())
	calls := map[string]call{
		"get_slice":        getSlice(ks1, "k", parent("Standard1", nil), all(), one),
		"insert":           insert(ks1, "k", path("Standard1", nil, b("c")), one),
		"get_range_slices": rangeSlices(ks1, parent("Standard1", nil), all(), &cassandra.KeyRange{StartKey: strp(""), EndKey: strp(""), Count: 1}, one),
		"describe_splits": func(ctx context.Context, c cassandra.Cassandra) error {
			_, err := c.DescribeSplits(ctx, "", "", 10)
			return err
		},
	}
	for method, f := range calls {
		err := f(e.ctx, e.c)
		if err != errInternal {
			t.Errorf("%s: err = %#v, want errInternal", method, err)
		}
		if !strings.Contains(e.log.String(), "method="+method) || !strings.Contains(e.log.String(), engine.ErrClosed.Error()) {
			t.Errorf("%s: log lacks the method or the cause:\n%s", method, e.log)
		}
	}
}

// TestValidationNeedsNoStore checks that refused requests never reach the
// store: with the store closed they still get their InvalidRequestException.
func TestValidationNeedsNoStore(t *testing.T) {
	e := newEnv(t)
	must(t, e.store.Close())
	if got := whyOf(insert(ks1, "", path("Standard1", nil, b("c")), one)(e.ctx, e.c)); got != "Key may not be empty" {
		t.Errorf("why = %q", got)
	}
	if e.log.Len() != 0 {
		t.Errorf("client error logged:\n%s", e.log)
	}
}

func TestDeadlineIsTimedOut(t *testing.T) {
	e := newEnv(t)
	for _, k := range []string{"a", "b", "c"} {
		must(t, e.c.Insert(e.ctx, ks1, k, path("Standard1", nil, b("c")), b("v"), 0, one))
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err := e.c.GetRangeSlices(ctx, ks1, parent("Standard1", nil), all(), &cassandra.KeyRange{StartKey: strp(""), EndKey: strp(""), Count: 10}, one)
	if _, ok := err.(*cassandra.TimedOutException); !ok {
		t.Errorf("err = %#v, want TimedOutException", err)
	}
}

func TestMultigetPastItsDeadlineIsTimedOut(t *testing.T) {
	e := newEnv(t)
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	_, err := e.c.MultigetSlice(ctx, ks1, []string{"a", "b"}, parent("Standard1", nil), all(), one)
	if _, ok := err.(*cassandra.TimedOutException); !ok {
		t.Errorf("err = %#v, want TimedOutException", err)
	}
}

func TestRpcTimeoutBoundsCalls(t *testing.T) {
	cfg, sc := testConfig(t)
	c := *cfg
	c.RpcTimeoutInMillis = 1234
	s := New(Options{Schema: sc, Store: newEnv(t).store, Config: &c})
	ctx, cancel := s.withTimeout(context.Background())
	defer cancel()
	deadline, ok := ctx.Deadline()
	if left := time.Until(deadline); !ok || left > 1234*time.Millisecond || left < time.Second {
		t.Errorf("deadline in %v (set %v), want about 1.234s", left, ok)
	}
	c.RpcTimeoutInMillis = 0
	s = New(Options{Schema: sc, Store: newEnv(t).store, Config: &c})
	ctx, cancel = s.withTimeout(context.Background())
	defer cancel()
	if _, ok := ctx.Deadline(); ok {
		t.Error("deadline set with RpcTimeoutInMillis 0")
	}
}

// TestPanicIsInternal checks that a panic inside a call is contained.
func TestPanicIsInternal(t *testing.T) {
	e := newEnv(t)
	// A nil Column inside a SuperColumn cannot come off the wire; a Go
	// caller passing one must not crash the server.
	err := e.c.BatchInsert(e.ctx, ks1, "k", map[string][]*cassandra.ColumnOrSuperColumn{
		"Super1": {{SuperColumn: &cassandra.SuperColumn{Name: b("sc"), Columns: []*cassandra.Column{nil}}}},
	}, one)
	if err != errInternal {
		t.Errorf("err = %v, want errInternal", err)
	}
	if !strings.Contains(e.log.String(), "method=batch_insert") || !strings.Contains(e.log.String(), "stack=") {
		t.Errorf("log lacks the method or the stack:\n%s", e.log)
	}
}

func TestMissingArguments(t *testing.T) {
	e := newEnv(t)
	if got := whyOf(get(ks1, "k", nil, one)(e.ctx, e.c)); got != "Required field 'column_path' was not present!" {
		t.Errorf("get without path: %q", got)
	}
	if got := whyOf(rangeSlices(ks1, parent("Standard1", nil), all(), nil, one)(e.ctx, e.c)); got != "Required field 'range' was not present!" {
		t.Errorf("get_range_slices without range: %q", got)
	}
}

// levelStore records the consistency level each call hands the store.
type levelStore struct {
	engine.Store
	mu     sync.Mutex
	levels []engine.ConsistencyLevel
}

func (s *levelStore) note(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.levels = append(s.levels, engine.Consistency(ctx))
}

func (s *levelStore) Apply(ctx context.Context, ks string, rows []engine.RowMutation) error {
	s.note(ctx)
	return s.Store.Apply(ctx, ks, rows)
}

func (s *levelStore) Get(ctx context.Context, ks, key string, q engine.Query) (engine.Row, error) {
	s.note(ctx)
	return s.Store.Get(ctx, ks, key, q)
}

func (s *levelStore) Range(ctx context.Context, ks string, b engine.TokenRange, q engine.Query, n int) ([]engine.Row, error) {
	s.note(ctx)
	return s.Store.Range(ctx, ks, b, q, n)
}

// TestConsistencyReachesTheStore checks that every data call hands its
// consistency level to the store, which a replicating store maps.
func TestConsistencyReachesTheStore(t *testing.T) {
	e := newEnv(t)
	ls := &levelStore{Store: e.store}
	cfg, sc := testConfig(t)
	c := New(Options{Schema: sc, Store: ls, Config: cfg}).Connection()
	must(t, c.Insert(e.ctx, ks1, "k", path("Standard1", nil, b("c")), b("v"), 1, cassandra.ConsistencyLevel_QUORUM))
	must(t, c.Insert(e.ctx, ks1, "k", path("Standard1", nil, b("d")), b("v"), 1, cassandra.ConsistencyLevel_ZERO))
	if _, err := c.GetSlice(e.ctx, ks1, "k", parent("Standard1", nil), all(), cassandra.ConsistencyLevel_ALL); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetRangeSlices(e.ctx, ks1, parent("Standard1", nil), all(), &cassandra.KeyRange{StartKey: strp(""), EndKey: strp(""), Count: 1}, cassandra.ConsistencyLevel_DCQUORUM); err != nil {
		t.Fatal(err)
	}
	want := []engine.ConsistencyLevel{engine.Quorum, engine.Zero, engine.All, engine.DCQuorum}
	if !reflect.DeepEqual(ls.levels, want) {
		t.Errorf("levels = %v, want %v", ls.levels, want)
	}
}

// boundingStore fails reads with fail; bounds says whether it bounds
// each request itself (engine.RequestTimeLimiter), as the Cassandra store.
type boundingStore struct {
	engine.Store
	fail   error
	bounds bool
}

func (s *boundingStore) LimitsRequestTime() bool { return s.bounds }

func (s *boundingStore) GetMany(ctx context.Context, ks string, keys []string, q engine.Query) ([]engine.Row, error) {
	if s.fail != nil {
		return nil, s.fail
	}
	return s.Store.GetMany(ctx, ks, keys, q)
}

// TestTimedOutIsLoggedWithItsBound: a TimedOutException is logged at
// warning level with the call, keyspace, family and the bound that ran
// out; and a store that bounds its own requests gets no call deadline.
func TestTimedOutIsLoggedWithItsBound(t *testing.T) {
	e := newEnv(t)
	bs := &boundingStore{Store: e.store, bounds: true, fail: fmt.Errorf("cassandra: read t: %w",
		&engine.TimedOutError{Source: engine.TimeoutDriver, Detail: "gocql: no response received from cassandra within timeout period, coordinator 127.0.0.1:9042"})}
	e2 := newEnv(t, func(o *Options) { o.Store = bs })
	_, err := e2.c.MultigetSlice(e2.ctx, ks1, []string{"a"}, parent("Standard1", nil), all(), one)
	if _, ok := err.(*cassandra.TimedOutException); !ok {
		t.Fatalf("err = %#v, want TimedOutException", err)
	}
	for _, want := range []string{"level=WARN msg=TimedOutException method=multiget_slice keyspace=" + ks1, "column_family=Standard1",
		"bound=driver", "coordinator 127.0.0.1:9042"} {
		if !strings.Contains(e2.log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, e2.log)
		}
	}
	if e2.svc.timeout != 0 {
		t.Errorf("call deadline %v on a store that bounds its requests, want none", e2.svc.timeout)
	}
	if e.svc.timeout == 0 {
		t.Error("no call deadline on the LevelDB store")
	}
}
