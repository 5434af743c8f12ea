// Package storetest is the conformance suite of engine.Store: every
// backend-neutral contract of the interface, checked the same way against
// every backend, in the manner of Go CDK's drivertest. A backend's tests
// call Run with a Harness that builds a fresh, empty Store for a schema.
//
// A behaviour a backend cannot provide is a named capability of the
// Harness; the test that needs it says so with t.Log, naming the section
// of the backend's documentation that explains why, and checks the
// weaker promise instead. No test is skipped silently.
package storetest

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// Harness builds Stores for the suite.
type Harness struct {
	// Open returns a fresh, empty Store for s. The harness releases it
	// (and whatever it created) when t ends. Run's tests call it from
	// parallel tests.
	Open func(t *testing.T, s *schema.Schema) engine.Store

	// Reopen closes st, a Store Open returned, and opens the same data
	// again for s, as a restarted thriftd would (RunSchema's restart
	// tests need it).
	Reopen func(t *testing.T, st engine.Store, s *schema.Schema) engine.Store

	// AtomicCalls is true when Apply applies all rows of one call or none
	// (LevelDB: one batch). When false, each row is still atomic, and
	// Limits names where the backend documents it.
	AtomicCalls bool
	// Limits names the documentation of the backend's exceptions, for the
	// t.Log of a test that checks a weaker promise.
	Limits string

	// Wait lets d pass on the clock of the stores Open made for t, so that
	// expiring columns expire: a backend with an injectable clock moves
	// it forward, one on a real cluster sleeps. Nil sleeps.
	Wait func(t *testing.T, d time.Duration)
	// Now reads the clock of the stores Open made for t. Nil is time.Now.
	Now func(t *testing.T) time.Time
}

func (h Harness) wait(t *testing.T, d time.Duration) {
	if h.Wait == nil {
		time.Sleep(d)
		return
	}
	h.Wait(t, d)
}

func (h Harness) now(t *testing.T) time.Time {
	if h.Now == nil {
		return time.Now()
	}
	return h.Now(t)
}

// Keyspace is the keyspace of TestSchema.
const Keyspace = "Keyspace1"

// TestSchema has a Standard and a Super column family of each interesting
// comparator, under the given partitioner (a storage-conf.xml class name).
func TestSchema(t testing.TB, part string) *schema.Schema {
	t.Helper()
	p, err := dht.Lookup(part)
	if err != nil {
		t.Fatal(err)
	}
	cfs := map[string]*schema.ColumnFamily{}
	add := func(name string, super bool, cmp, sub string) {
		cf := &schema.ColumnFamily{Keyspace: Keyspace, Name: name, Super: super, Comparator: mustComparator(t, cmp)}
		if super {
			cf.SubComparator = mustComparator(t, sub)
		}
		cfs[name] = cf
	}
	add("Standard1", false, "BytesType", "")
	add("Standard2", false, "BytesType", "")
	add("StandardLong1", false, "LongType", "")
	add("Super1", true, "BytesType", "LongType")
	return &schema.Schema{ClusterName: "Test", Partitioner: p, Keyspaces: map[string]*schema.Keyspace{
		Keyspace: {Name: Keyspace, ReplicationFactor: 1, ColumnFamilies: cfs},
	}}
}

func mustComparator(t testing.TB, name string) marshal.Comparator {
	t.Helper()
	c, err := marshal.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var ctx = context.Background()

// Put is a RowMutation writing one column.
func Put(cf, key, name, value string, ts int64) engine.RowMutation {
	return engine.RowMutation{Key: key, Mutations: []engine.Mutation{{ColumnFamily: cf, Name: []byte(name), Value: []byte(value), Timestamp: ts}}}
}

// PutSub is a RowMutation writing one LongType subcolumn.
func PutSub(cf, key, sc string, sub int64, value string, ts int64) engine.RowMutation {
	return engine.RowMutation{Key: key, Mutations: []engine.Mutation{{ColumnFamily: cf, SuperColumn: []byte(sc), Name: Long(sub), Value: []byte(value), Timestamp: ts}}}
}

// Del is a RowMutation deleting a row, super column, column or subcolumn.
func Del(cf, key string, sc, name []byte, ts int64) engine.RowMutation {
	return engine.RowMutation{Key: key, Mutations: []engine.Mutation{{ColumnFamily: cf, SuperColumn: sc, Name: name, Timestamp: ts, Delete: true}}}
}

// Long is a LongType name.
func Long(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// Apply applies rows to Keyspace or fails the test.
func Apply(t testing.TB, st engine.Store, rows ...engine.RowMutation) {
	t.Helper()
	if err := st.Apply(ctx, Keyspace, rows); err != nil {
		t.Fatal(err)
	}
}

// All is a predicate of the first count names.
func All(count int) engine.Predicate { return engine.Predicate{Count: count} }

// Render prints a row compactly: "name=value@ts ..." or
// "sc{name=value@ts ...} ...".
func Render(r engine.Row) string {
	var parts []string
	col := func(c engine.Column) string {
		name := string(c.Name)
		if len(c.Name) == 8 && !isPrintable(c.Name) {
			name = fmt.Sprint(int64(binary.BigEndian.Uint64(c.Name)))
		}
		return fmt.Sprintf("%s=%s@%d", name, c.Value, c.Timestamp)
	}
	for _, c := range r.Columns {
		parts = append(parts, col(c))
	}
	for _, sc := range r.SuperColumns {
		var subs []string
		for _, c := range sc.Columns {
			subs = append(subs, col(c))
		}
		parts = append(parts, fmt.Sprintf("%s{%s}", sc.Name, strings.Join(subs, " ")))
	}
	return strings.Join(parts, " ")
}

func isPrintable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// Get reads a row of Keyspace and renders it, or fails the test.
func Get(t testing.TB, st engine.Store, cf, key string, sc []byte, p engine.Predicate) string {
	t.Helper()
	r, err := st.Get(ctx, Keyspace, key, engine.Query{ColumnFamily: cf, SuperColumn: sc, Predicate: p})
	if err != nil {
		t.Fatal(err)
	}
	return Render(r)
}

// Expect fails the test unless got equals want.
func Expect(t testing.TB, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
