package ldbstore

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
)

func casPut(name, value string) engine.Mutation {
	return engine.Mutation{ColumnFamily: "Standard1", Name: []byte(name), Value: []byte(value), Timestamp: 1}
}

// The condition as ThriftCASRequest.appliesTo judges it, and the current
// columns a failed compare-and-set reports.
func TestCompareAndSetCondition(t *testing.T) {
	clock := newTestClock()
	st := open(t, t.TempDir(), testSchema(t, "OrderPreservingPartitioner"), Options{Now: clock.Now})
	defer st.Close()
	cas := func(key string, expected []engine.Column, updates ...engine.Mutation) (bool, string) {
		t.Helper()
		ok, cur, err := st.CompareAndSet(ctx, ks, key, engine.CAS{ColumnFamily: "Standard1", Expected: expected, Updates: updates})
		if err != nil {
			t.Fatal(err)
		}
		s := ""
		for _, c := range cur {
			s += string(c.Name) + "=" + string(c.Value) + " "
		}
		return ok, s
	}
	exp := func(kv ...string) []engine.Column {
		var out []engine.Column
		for i := 0; i < len(kv); i += 2 {
			out = append(out, engine.Column{Name: []byte(kv[i]), Value: []byte(kv[i+1])})
		}
		return out
	}
	for _, c := range []struct {
		what     string
		key      string
		expected []engine.Column
		update   engine.Mutation
		ok       bool
		current  string
	}{
		{"create", "k", nil, casPut("b", "2"), true, ""},
		{"create again", "k", nil, casPut("a", "1"), false, "b=2 "},
		{"matching", "k", exp("b", "2"), casPut("a", "1"), true, ""},
		{"stale", "k", exp("b", "1", "a", "1"), casPut("c", "3"), false, "a=1 b=2 "},
		{"missing name", "k", exp("a", "1", "zz", "1"), casPut("c", "3"), false, "a=1 "},
		{"empty value against a value", "k", exp("a", ""), casPut("c", "3"), false, "a=1 "},
		{"create with an empty value", "k2", nil, casPut("e", ""), true, ""},
		{"nil value", "k2", []engine.Column{{Name: []byte("e")}}, casPut("f", "1"), false, "e= "},
		{"empty value matches an empty value", "k2", exp("e", ""), casPut("f", "1"), true, ""},
	} {
		ok, cur := cas(c.key, c.expected, c.update)
		if ok != c.ok || cur != c.current {
			t.Errorf("%s: got %v %q, want %v %q", c.what, ok, cur, c.ok, c.current)
		}
	}
	// A row holding only tombstones, or only expired columns, is absent.
	apply(t, st, storetest.PutTTL("Standard1", "exp", "c", "v", 1, 1), del("Standard1", "gone", nil, []byte("c"), 5))
	clock.Advance(2 * time.Second)
	for _, k := range []string{"exp", "gone"} {
		if ok, cur := cas(k, nil, casPut("n", "1")); !ok {
			t.Errorf("creating row %s, which holds no live column: refused with %q", k, cur)
		}
	}
	// The updates are written after the row's newest compare-and-set,
	// whatever timestamp they carry, and never expire.
	m := casPut("t", "v")
	m.TTL = 1
	if ok, _ := cas("ttl", nil, m); !ok {
		t.Fatal("create refused")
	}
	clock.Advance(5 * time.Second)
	row, err := st.Get(ctx, ks, "ttl", engine.Query{ColumnFamily: "Standard1", Predicate: all(10)})
	if err != nil {
		t.Fatal(err)
	}
	if len(row.Columns) != 1 || row.Columns[0].TTL != 0 || row.Columns[0].Timestamp < clock.Now().Add(-10*time.Second).UnixMicro() {
		t.Errorf("the column cas wrote: %+v", row.Columns)
	}
}

// Many goroutines racing to create one row: exactly one succeeds; racing
// increments by compare-and-set lose none.
func TestCompareAndSetRaces(t *testing.T) {
	st := open(t, t.TempDir(), testSchema(t, "OrderPreservingPartitioner"), Options{})
	defer st.Close()
	const n = 32
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, _, err := st.CompareAndSet(ctx, ks, "race", engine.CAS{ColumnFamily: "Standard1", Updates: []engine.Mutation{casPut(fmt.Sprint("c", i), "x")}})
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins.Add(1)
			}
		}()
	}
	wg.Wait()
	if w := wins.Load(); w != 1 {
		t.Fatalf("%d of %d creators won", w, n)
	}

	const iterations = 20
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := 0
			for done := 0; done < iterations; {
				var expected []engine.Column
				if v > 0 {
					expected = []engine.Column{{Name: []byte("v"), Value: []byte(strconv.Itoa(v))}}
				}
				ok, cur, err := st.CompareAndSet(ctx, ks, "counter", engine.CAS{ColumnFamily: "Standard1", Expected: expected, Updates: []engine.Mutation{casPut("v", strconv.Itoa(v+1))}})
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					v++
					done++
					continue
				}
				if v, err = strconv.Atoi(string(cur[0].Value)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	row, err := st.Get(ctx, ks, "counter", engine.Query{ColumnFamily: "Standard1", Predicate: all(10)})
	if err != nil {
		t.Fatal(err)
	}
	if len(row.Columns) != 1 || string(row.Columns[0].Value) != strconv.Itoa(n*iterations) {
		t.Fatalf("after %d × %d increments: %+v", n, iterations, row.Columns)
	}
}
