package handler

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/thriftd/thriftd/config"
	"github.com/thriftd/thriftd/engine/ldbstore"
	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/schema"
)

// fixture is the path of a file in test/fixtures.
func fixture(t testing.TB, name string) string { return testenv.Fixture(name) }

var (
	fixtureOnce   sync.Once
	fixtureCfg    *config.Config
	fixtureSchema *schema.Schema
	fixtureErr    error
)

// testConfig is Cassandra 0.6's own system-test configuration
// (storage-conf-0.6-test.xml) and its schema. Both are only read, so every
// test shares them.
func testConfig(t testing.TB) (*config.Config, *schema.Schema) {
	t.Helper()
	path := fixture(t, "storage-conf-0.6-test.xml")
	fixtureOnce.Do(func() {
		fixtureCfg, fixtureErr = config.Load(path)
		if fixtureErr == nil {
			fixtureSchema, fixtureErr = schema.FromConfig(fixtureCfg)
		}
	})
	if fixtureErr != nil {
		t.Fatalf("load %s: %v", path, fixtureErr)
	}
	return fixtureCfg, fixtureSchema
}

// testEnv is a Service over a fresh LevelDB store with the test schema.
type testEnv struct {
	svc   *Service
	store *ldbstore.Store
	log   *bytes.Buffer // what the Service logged
	c     cassandra.Cassandra
	ctx   context.Context
}

type envOption func(*Options)

func withAuth(a Authenticator) envOption { return func(o *Options) { o.Auth = a } }

func newEnv(t testing.TB, opts ...envOption) *testEnv {
	t.Helper()
	cfg, sc := testConfig(t)
	st, err := ldbstore.Open(t.TempDir(), sc, ldbstore.Options{PurgeInterval: -1, BlockCacheSize: 1 << 20, WriteBufferSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	logs := &bytes.Buffer{}
	o := Options{
		Schema:      sc,
		Store:       st,
		Config:      cfg,
		NodeAddress: "127.0.0.1",
		NodeToken:   st.Token(),
		Logger:      slog.New(slog.NewTextHandler(&lockedWriter{w: logs}, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, f := range opts {
		f(&o)
	}
	svc := New(o)
	return &testEnv{svc: svc, store: st, log: logs, c: svc.Connection(), ctx: context.Background()}
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

const one = cassandra.ConsistencyLevel_ONE

// i64 is a LongType name: 8 bytes big-endian, as the system tests' _i64.
func i64(n int64) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(n))
}

func col(name, value string, ts int64) *cassandra.Column {
	return &cassandra.Column{Name: []byte(name), Value: []byte(value), Timestamp: ts}
}

func lcol(name int64, value string, ts int64) *cassandra.Column {
	return &cassandra.Column{Name: i64(name), Value: []byte(value), Timestamp: ts}
}

func path(cf string, sc, c []byte) *cassandra.ColumnPath {
	return &cassandra.ColumnPath{ColumnFamily: cf, SuperColumn: sc, Column: c}
}

func parent(cf string, sc []byte) *cassandra.ColumnParent {
	return &cassandra.ColumnParent{ColumnFamily: cf, SuperColumn: sc}
}

func names(ns ...string) *cassandra.SlicePredicate {
	p := &cassandra.SlicePredicate{ColumnNames: [][]byte{}}
	for _, n := range ns {
		p.ColumnNames = append(p.ColumnNames, []byte(n))
	}
	return p
}

func sliceRange(start, finish []byte, reversed bool, count int32) *cassandra.SlicePredicate {
	if start == nil {
		start = []byte{}
	}
	if finish == nil {
		finish = []byte{}
	}
	return &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: start, Finish: finish, Reversed: reversed, Count: count}}
}

func all() *cassandra.SlicePredicate { return sliceRange(nil, nil, false, 1000) }

func strp(s string) *string { return &s }

// whyOf returns the why of an InvalidRequestException, or a description of
// whatever else err is.
func whyOf(err error) string {
	if ire, ok := err.(*cassandra.InvalidRequestException); ok {
		return ire.Why
	}
	return fmt.Sprintf("<not an InvalidRequestException: %T %v>", err, err)
}

// colString renders a Column compactly for comparisons in failures.
func colString(c *cassandra.Column) string {
	if c == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%q=%q@%d", c.Name, c.Value, c.Timestamp)
}

// coscString renders a result list compactly: columns as name=value@ts,
// super columns as name{...}.
func coscString(items []*cassandra.ColumnOrSuperColumn) string {
	var parts []string
	for _, it := range items {
		parts = append(parts, itemString(it))
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func itemString(it *cassandra.ColumnOrSuperColumn) string {
	switch {
	case it == nil:
		return "<nil>"
	case it.Column != nil && it.SuperColumn != nil:
		return "<both>"
	case it.Column != nil:
		return colString(it.Column)
	case it.SuperColumn != nil:
		var cs []string
		for _, c := range it.SuperColumn.Columns {
			cs = append(cs, colString(c))
		}
		return fmt.Sprintf("%q{%s}", it.SuperColumn.Name, strings.Join(cs, " "))
	}
	return "<empty>"
}

func columnsString(cols ...*cassandra.Column) string {
	items := make([]*cassandra.ColumnOrSuperColumn, len(cols))
	for i, c := range cols {
		items[i] = &cassandra.ColumnOrSuperColumn{Column: c}
	}
	return coscString(items)
}

func superString(name string, cols ...*cassandra.Column) string {
	return itemString(&cassandra.ColumnOrSuperColumn{SuperColumn: &cassandra.SuperColumn{Name: []byte(name), Columns: cols}})
}

// must fails the test on an unexpected error.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
