package migrate

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// fake is a 19.x service that records the writes it takes, refuses them
// while down, and answers get_slice with what it holds.
type fake struct {
	cassandra19.Cassandra // unimplemented calls panic
	mu                    sync.Mutex
	down                  bool
	keyspace              string
	cells                 map[string][]byte // key/name -> value
	deletions             []int64
	schema                []string
	refuseSchema          bool
}

func newFake() *fake { return &fake{cells: map[string][]byte{}} }

func (f *fake) SetKeyspace(_ context.Context, ks string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keyspace = ks
	return nil
}

func (f *fake) Insert(_ context.Context, key []byte, _ *cassandra19.ColumnParent, c *cassandra19.Column, _ cassandra19.ConsistencyLevel) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return cassandra19.NewTimedOutException()
	}
	f.cells[string(key)+"/"+string(c.Name)] = c.Value
	return nil
}

func (f *fake) BatchMutate(_ context.Context, m map[string]map[string][]*cassandra19.Mutation, _ cassandra19.ConsistencyLevel) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return cassandra19.NewUnavailableException()
	}
	for _, byCF := range m {
		for _, ms := range byCF {
			for _, mu := range ms {
				if mu.Deletion != nil {
					f.deletions = append(f.deletions, mu.Deletion.GetTimestamp())
				}
			}
		}
	}
	return nil
}

func (f *fake) GetSlice(_ context.Context, key []byte, _ *cassandra19.ColumnParent, _ *cassandra19.SlicePredicate, _ cassandra19.ConsistencyLevel) ([]*cassandra19.ColumnOrSuperColumn, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*cassandra19.ColumnOrSuperColumn
	for k, v := range f.cells {
		if name, ok := strings.CutPrefix(k, string(key)+"/"); ok {
			ts := int64(1)
			out = append(out, &cassandra19.ColumnOrSuperColumn{Column: &cassandra19.Column{Name: []byte(name), Value: v, Timestamp: &ts}})
		}
	}
	return out, nil
}

func (f *fake) SystemAddColumnFamily(_ context.Context, d *cassandra19.CfDef) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refuseSchema {
		return "", &cassandra19.InvalidRequestException{Why: "no such comparator"}
	}
	f.schema = append(f.schema, d.Name)
	return "v1", nil
}

// serve runs h as a framed Thrift server on loopback.
func serve(t *testing.T, h cassandra19.Cassandra) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sock := thrift.NewTServerSocketFromAddrTimeout(l.Addr(), 0)
	l.Close()
	srv := thrift.NewTSimpleServer4(cassandra19.NewCassandraProcessor(h), sock,
		thrift.NewTFramedTransportFactoryConf(thrift.NewTTransportFactory(), nil), thrift.NewTBinaryProtocolFactoryConf(nil))
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	go srv.AcceptLoop()
	t.Cleanup(func() { srv.Stop() })
	return l.Addr().String()
}

func newProxy(t *testing.T, originAddr string, target *fake, reg *prometheus.Registry) *Proxy {
	t.Helper()
	p, err := New(Options{
		Origin:     Origin{Addr: originAddr, Timeout: 10 * time.Second},
		Replay:     func() cassandra19.Cassandra { return target },
		LogPath:    filepath.Join(t.TempDir(), "pending.log"),
		RetryEvery: 10 * time.Millisecond,
		Registerer: reg,
		Logger:     slog.New(slog.DiscardHandler),
		Now:        func() time.Time { return time.UnixMicro(42) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// wrap is p.Wrap(target), whose origin connection is closed when the test
// ends, before the fake origin stops (which waits for its clients).
func wrap(t *testing.T, p *Proxy, target cassandra19.Cassandra) cassandra19.Cassandra {
	c := p.Wrap(target).(*conn)
	t.Cleanup(func() {
		if c.origin != nil {
			c.origin.trans.Close()
		}
	})
	return c
}

// A write the origin acknowledges and the target refuses is acknowledged,
// counted, kept in the durable log and replayed when the target takes it.
func TestTargetFailureIsLoggedAndReplayed(t *testing.T) {
	ctx := context.Background()
	origin, target := newFake(), newFake()
	reg := prometheus.NewRegistry()
	p := newProxy(t, serve(t, origin), target, reg)
	c := wrap(t, p, target)
	if err := c.SetKeyspace(ctx, "ks"); err != nil {
		t.Fatal(err)
	}
	target.mu.Lock()
	target.down = true
	target.mu.Unlock()
	ts := int64(7)
	parent := &cassandra19.ColumnParent{ColumnFamily: "cf"}
	if err := c.Insert(ctx, []byte("k"), parent, &cassandra19.Column{Name: []byte("n"), Value: []byte("v"), Timestamp: &ts}, cassandra19.ConsistencyLevel_ONE); err != nil {
		t.Fatalf("insert with the target down: %v; want the origin's acknowledgement", err)
	}
	if string(origin.cells["k/n"]) != "v" {
		t.Fatal("the origin did not get the write")
	}
	if got := testutil.ToFloat64(p.m.targetFailures.WithLabelValues("insert")); got != 1 {
		t.Fatalf("target failures %v, want 1", got)
	}
	if p.pending.Len() != 1 {
		t.Fatalf("%d writes in the durable log, want 1", p.pending.Len())
	}
	target.mu.Lock()
	target.down = false
	target.mu.Unlock()
	deadline := time.Now().Add(time.Minute)
	for p.pending.Len() > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the logged write was not replayed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	target.mu.Lock()
	defer target.mu.Unlock()
	if string(target.cells["k/n"]) != "v" || target.keyspace != "ks" {
		t.Fatalf("after replay the target holds %q in keyspace %q", target.cells["k/n"], target.keyspace)
	}
}

// A deletion without a timestamp gets the proxy's, the same on both.
func TestDeletionGetsOneTimestamp(t *testing.T) {
	ctx := context.Background()
	origin, target := newFake(), newFake()
	p := newProxy(t, serve(t, origin), target, prometheus.NewRegistry())
	c := wrap(t, p, target)
	m := map[string]map[string][]*cassandra19.Mutation{"k": {"cf": {{Deletion: &cassandra19.Deletion{}}}}}
	if err := c.BatchMutate(ctx, m, cassandra19.ConsistencyLevel_ONE); err != nil {
		t.Fatal(err)
	}
	if len(origin.deletions) != 1 || len(target.deletions) != 1 || origin.deletions[0] != 42 || target.deletions[0] != 42 {
		t.Fatalf("deletion timestamps: origin %v, target %v; want [42] on both", origin.deletions, target.deletions)
	}
}

// Reads both answer the origin's and count a difference; reads target
// never reach the origin; writes target need reads target.
func TestReadModes(t *testing.T) {
	ctx := context.Background()
	origin, target := newFake(), newFake()
	origin.cells["k/a"] = []byte("1")
	p := newProxy(t, serve(t, origin), target, prometheus.NewRegistry())
	c := wrap(t, p, target)
	pred := &cassandra19.SlicePredicate{}
	parent := &cassandra19.ColumnParent{ColumnFamily: "cf"}
	if err := p.SetModes(ReadBoth, WriteBoth); err != nil {
		t.Fatal(err)
	}
	got, err := c.GetSlice(ctx, []byte("k"), parent, pred, cassandra19.ConsistencyLevel_ONE)
	if err != nil || len(got) != 1 {
		t.Fatalf("reads both: %v %v; want the origin's one column", got, err)
	}
	if d := testutil.ToFloat64(p.m.differences.WithLabelValues("get_slice")); d != 1 {
		t.Fatalf("differences %v, want 1", d)
	}
	if err := p.SetModes(ReadOrigin, WriteTarget); err == nil {
		t.Fatal("writes target with reads origin was accepted")
	}
	if err := p.SetModes(ReadTarget, WriteTarget); err != nil {
		t.Fatal(err)
	}
	got, err = c.GetSlice(ctx, []byte("k"), parent, pred, cassandra19.ConsistencyLevel_ONE)
	if err != nil || len(got) != 0 {
		t.Fatalf("reads target: %v %v; want the target's nothing", got, err)
	}
	ts := int64(1)
	if err := c.Insert(ctx, []byte("k"), parent, &cassandra19.Column{Name: []byte("b"), Value: []byte("2"), Timestamp: &ts}, cassandra19.ConsistencyLevel_ONE); err != nil {
		t.Fatal(err)
	}
	if _, ok := origin.cells["k/b"]; ok {
		t.Fatal("the origin got a write after its writes were turned off")
	}
}

// An unreachable origin answers UnavailableException and the target is
// not written; a schema change the target refuses says so.
func TestOriginUnreachableAndSchemaRefused(t *testing.T) {
	ctx := context.Background()
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := l.Addr().String()
	l.Close()
	target := newFake()
	p := newProxy(t, closed, target, prometheus.NewRegistry())
	c := wrap(t, p, target)
	ts := int64(1)
	err := c.Insert(ctx, []byte("k"), &cassandra19.ColumnParent{ColumnFamily: "cf"}, &cassandra19.Column{Name: []byte("n"), Value: []byte("v"), Timestamp: &ts}, cassandra19.ConsistencyLevel_ONE)
	var un *cassandra19.UnavailableException
	if !errors.As(err, &un) || len(target.cells) != 0 {
		t.Fatalf("insert with the origin unreachable: %v, target %v; want UnavailableException and nothing written", err, target.cells)
	}

	origin := newFake()
	target.refuseSchema = true
	p2 := newProxy(t, serve(t, origin), target, prometheus.NewRegistry())
	_, err = wrap(t, p2, target).SystemAddColumnFamily(ctx, &cassandra19.CfDef{Name: "cf2"})
	var ire *cassandra19.InvalidRequestException
	if !errors.As(err, &ire) || !strings.Contains(ire.Why, "applied to the origin") || !strings.Contains(ire.Why, "no such comparator") {
		t.Fatalf("schema change the target refuses: %v", err)
	}
	if len(origin.schema) != 1 {
		t.Fatalf("origin schema %v, want cf2", origin.schema)
	}
}
