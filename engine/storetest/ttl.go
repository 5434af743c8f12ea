package storetest

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
)

// The expiring column tests write short TTLs of shortTTL seconds and then
// let expireWait pass: long enough that a column written a moment before
// the wait has surely expired on a backend whose clock is real, while a
// read right after the write still surely sees it live.
const (
	shortTTL   = 2
	longTTL    = 3600
	expireWait = 3 * time.Second
)

// PutTTL is a RowMutation writing one expiring column.
func PutTTL(cf, key, name, value string, ts int64, ttl int32) engine.RowMutation {
	r := Put(cf, key, name, value, ts)
	r.Mutations[0].TTL = ttl
	return r
}

// PutSubTTL is a RowMutation writing one expiring LongType subcolumn.
func PutSubTTL(cf, key, sc string, sub int64, value string, ts int64, ttl int32) engine.RowMutation {
	r := PutSub(cf, key, sc, sub, value, ts)
	r.Mutations[0].TTL = ttl
	return r
}

// checkExpiry checks the TTL and expiry a read reports for a column
// written with ttl at about now: exactly ttl, or (a backend that cannot
// recall it) the seconds left, and an expiry second about now + ttl.
func checkExpiry(t *testing.T, c engine.Column, ttl int32, now time.Time) {
	t.Helper()
	if ttl == 0 {
		if c.TTL != 0 || c.ExpiresAt != 0 {
			t.Errorf("column %q never expires, but reads TTL %d, ExpiresAt %d", c.Name, c.TTL, c.ExpiresAt)
		}
		return
	}
	if c.TTL <= 0 || c.TTL > ttl {
		t.Errorf("column %q written with TTL %d reads TTL %d", c.Name, ttl, c.TTL)
	}
	if want := now.Unix() + int64(ttl); c.ExpiresAt < want-2 || c.ExpiresAt > want+1 {
		t.Errorf("column %q written with TTL %d at %d reads ExpiresAt %d", c.Name, ttl, now.Unix(), c.ExpiresAt)
	}
}

// An expiring column is live until it expires, then no read returns it,
// it acts as a tombstone at its timestamp, and its row stays a range ghost.
func testExpiringColumns(t *testing.T, h Harness) {
	st := h.fresh(t)
	written := h.now(t)
	Apply(t, st,
		PutTTL("Standard1", "k", "a-short", "s", 10, shortTTL),
		PutTTL("Standard1", "k", "long", "l", 10, longTTL),
		Put("Standard1", "k", "plain", "p", 10),
		// An older plain version under an expiring one: once that expires,
		// the older one stays shadowed.
		Put("Standard1", "k", "b-over", "old", 5),
		PutTTL("Standard1", "k", "b-over", "new", 6, shortTTL),
		PutTTL("Standard1", "gone", "c", "v", 10, shortTTL),
		PutSubTTL("Super1", "s", "sc1", 1, "short", 10, shortTTL),
		PutSubTTL("Super1", "s", "sc1", 2, "long", 10, longTTL),
		PutSubTTL("Super1", "s", "sc2", 1, "short", 10, shortTTL),
	)
	// Before expiry: everything is live, with its TTL.
	row, err := st.Get(ctx, Keyspace, "k", engine.Query{ColumnFamily: "Standard1", Predicate: All(100)})
	if err != nil {
		t.Fatal(err)
	}
	Expect(t, Render(row), "a-short=s@10 b-over=new@6 long=l@10 plain=p@10")
	ttls := map[string]int32{"a-short": shortTTL, "b-over": shortTTL, "long": longTTL, "plain": 0}
	for _, c := range row.Columns {
		checkExpiry(t, c, ttls[string(c.Name)], written)
	}
	sup, err := st.Get(ctx, Keyspace, "s", engine.Query{ColumnFamily: "Super1", Predicate: All(100)})
	if err != nil {
		t.Fatal(err)
	}
	Expect(t, Render(sup), "sc1{1=short@10 2=long@10} sc2{1=short@10}")
	if len(sup.SuperColumns) == 2 {
		checkExpiry(t, sup.SuperColumns[0].Columns[1], longTTL, written)
		checkExpiry(t, sup.SuperColumns[1].Columns[0], shortTTL, written)
	}
	if n, err := st.Count(ctx, Keyspace, "k", "Standard1", nil); n != 4 || err != nil {
		t.Errorf("Count before expiry = %d, %v; want 4", n, err)
	}

	h.wait(t, expireWait)

	// After: no read returns the expired columns, and they do not count
	// towards a slice's count.
	Expect(t, Get(t, st, "Standard1", "k", nil, All(100)), "long=l@10 plain=p@10")
	Expect(t, Get(t, st, "Standard1", "k", nil, All(1)), "long=l@10")
	Expect(t, Get(t, st, "Standard1", "k", nil, engine.Predicate{Count: 1, Reversed: true, Finish: []byte("a-short")}), "plain=p@10")
	Expect(t, Get(t, st, "Standard1", "k", nil, engine.Predicate{Names: [][]byte{[]byte("a-short"), []byte("b-over"), []byte("long")}}), "long=l@10")
	Expect(t, Get(t, st, "Standard1", "gone", nil, All(100)), "")
	if n, err := st.Count(ctx, Keyspace, "k", "Standard1", nil); n != 2 || err != nil {
		t.Errorf("Count after expiry = %d, %v; want 2", n, err)
	}
	rows, err := st.GetMany(ctx, Keyspace, []string{"gone", "k"}, engine.Query{ColumnFamily: "Standard1", Predicate: All(100)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || Render(rows[0]) != "" || Render(rows[1]) != "long=l@10 plain=p@10" {
		t.Errorf("GetMany after expiry = %+v", rows)
	}
	// The row whose only column expired is a range ghost.
	ranged, err := st.Range(ctx, Keyspace, engine.TokenRange{StartInclusive: true}, engine.Query{ColumnFamily: "Standard1", Predicate: All(100)}, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range ranged {
		got = append(got, r.Key+":"+Render(r))
	}
	Expect(t, strings.Join(got, " "), "gone: k:long=l@10 plain=p@10")
	// Super columns: an expired subcolumn is gone, and a super column with
	// none live left is too.
	Expect(t, Get(t, st, "Super1", "s", nil, All(100)), "sc1{2=long@10}")
	Expect(t, Get(t, st, "Super1", "s", []byte("sc2"), All(100)), "")
	Expect(t, Get(t, st, "Super1", "s", []byte("sc1"), All(100)), "2=long@10")
	if n, err := st.Count(ctx, Keyspace, "s", "Super1", nil); n != 1 || err != nil {
		t.Errorf("Count of super columns after expiry = %d, %v; want 1", n, err)
	}

	// An expired column is a tombstone at its timestamp: an older write
	// stays hidden, a newer one is live.
	Apply(t, st, Put("Standard1", "k", "a-short", "older", 9), Put("Standard1", "k", "b-over", "older", 5))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(100)), "long=l@10 plain=p@10")
	Apply(t, st, Put("Standard1", "k", "a-short", "newer", 11), PutSub("Super1", "s", "sc2", 1, "newer", 11))
	Expect(t, Get(t, st, "Standard1", "k", nil, All(100)), "a-short=newer@11 long=l@10 plain=p@10")
	Expect(t, Get(t, st, "Super1", "s", nil, All(100)), "sc1{2=long@10} sc2{1=newer@11}")
}

// Expiring columns written many to a row at once, as batch_mutate does,
// expire as single writes do.
func testExpiringColumnsInWideWrites(t *testing.T, h Harness) {
	st := h.fresh(t)
	var std, sup []engine.Mutation
	for i := range 24 {
		std = append(std, engine.Mutation{ColumnFamily: "Standard1", Name: []byte(fmt.Sprintf("c%02d", i)), Value: []byte("v"), Timestamp: 10, TTL: shortTTL})
		sup = append(sup, engine.Mutation{ColumnFamily: "Super1", SuperColumn: []byte(fmt.Sprintf("sc%d", i%3)), Name: Long(int64(i)), Value: []byte("v"), Timestamp: 10, TTL: shortTTL})
	}
	std = append(std, engine.Mutation{ColumnFamily: "Standard1", Name: []byte("kept"), Value: []byte("v"), Timestamp: 10})
	sup = append(sup, engine.Mutation{ColumnFamily: "Super1", SuperColumn: []byte("sc1"), Name: Long(100), Value: []byte("v"), Timestamp: 10, TTL: longTTL})
	Apply(t, st, engine.RowMutation{Key: "w", Mutations: std}, engine.RowMutation{Key: "w", Mutations: sup})
	if n, err := st.Count(ctx, Keyspace, "w", "Standard1", nil); n != 25 || err != nil {
		t.Errorf("Count before expiry = %d, %v; want 25", n, err)
	}
	if n, err := st.Count(ctx, Keyspace, "w", "Super1", []byte("sc1")); n != 9 || err != nil {
		t.Errorf("subcolumn Count before expiry = %d, %v; want 9", n, err)
	}
	h.wait(t, expireWait)
	Expect(t, Get(t, st, "Standard1", "w", nil, All(100)), "kept=v@10")
	Expect(t, Get(t, st, "Super1", "w", nil, All(100)), "sc1{100=v@10}")
	// Rewriting the expired columns with older timestamps, many at once,
	// leaves them shadowed.
	for i := range std {
		std[i].Timestamp, std[i].TTL, std[i].Value = 9, 0, []byte("old")
	}
	Apply(t, st, engine.RowMutation{Key: "w", Mutations: std})
	Expect(t, Get(t, st, "Standard1", "w", nil, All(100)), "kept=v@10")
}

// modelTTLCell is one version of a column in the expiring model: unique
// timestamps make the winner of any two versions the later one, whatever
// their expiry.
type modelTTLCell struct {
	ts        int64
	deleted   bool
	value     string
	expiresIn int // the wait after which the column has expired (0 the first); -1 never
}

// Random writes, deletions and expiring writes, in phases separated by
// waits after which every short-lived column has expired, must read as a
// naive model says: the latest version of each column wins, and is live
// if it is a write that has not expired and no row or super column
// tombstone at or after its timestamp covers it.
func testExpiringMatchesModel(t *testing.T, h Harness) {
	st := h.fresh(t)
	rng := rand.New(rand.NewPCG(7, 8))
	pick := func(s ...string) string { return s[rng.IntN(len(s))] }
	keys := []string{"k1", "k2", "k3"}
	names := []string{"a", "b", "c", "d", "e"}
	scs := []string{"s1", "s2"}
	used := map[int64]bool{}
	stamp := func() int64 {
		for {
			ts := rng.Int64N(1000)
			if !used[ts] {
				used[ts] = true
				return ts
			}
		}
	}
	type rowState struct {
		tomb int64
		scs  map[string]int64
		cols map[string]modelTTLCell // Standard: name; Super: sc + "\x00" + name
	}
	rows := map[string]*rowState{}
	state := func(cf, key string) *rowState {
		r := rows[cf+"/"+key]
		if r == nil {
			r = &rowState{tomb: -1, scs: map[string]int64{}, cols: map[string]modelTTLCell{}}
			rows[cf+"/"+key] = r
		}
		return r
	}
	clock := 0 // waits so far: the model's clock
	// render states the model's answer to a whole-row read at the top
	// level, in the form Render gives.
	render := func(cf, key string) string {
		r := state(cf, key)
		type out struct{ sc, name, text string }
		var live []out
		for k, c := range r.cols {
			shadow := r.tomb
			sc, name := "", k
			if cf == "Super1" {
				sc, name, _ = strings.Cut(k, "\x00")
				if t, ok := r.scs[sc]; ok {
					shadow = max(shadow, t)
				}
			}
			if c.deleted || c.ts <= shadow || (c.expiresIn >= 0 && c.expiresIn < clock) {
				continue
			}
			if cf == "Super1" {
				name = fmt.Sprint(int64(name[7]))
			}
			live = append(live, out{sc, name, fmt.Sprintf("%s=%s@%d", name, c.value, c.ts)})
		}
		sort.Slice(live, func(i, j int) bool {
			if live[i].sc != live[j].sc {
				return live[i].sc < live[j].sc
			}
			return live[i].name < live[j].name
		})
		if cf != "Super1" {
			var parts []string
			for _, o := range live {
				parts = append(parts, o.text)
			}
			return strings.Join(parts, " ")
		}
		var parts []string
		for i := 0; i < len(live); {
			j := i
			var subs []string
			for ; j < len(live) && live[j].sc == live[i].sc; j++ {
				subs = append(subs, live[j].text)
			}
			parts = append(parts, live[i].sc+"{"+strings.Join(subs, " ")+"}")
			i = j
		}
		return strings.Join(parts, " ")
	}
	phases, ops := 4, 60
	if testing.Short() {
		phases, ops = 2, 40
	}
	for range phases {
		for range ops {
			key := pick(keys...)
			cf := pick("Standard1", "Super1")
			mu := engine.Mutation{ColumnFamily: cf, Name: []byte(pick(names...)), Value: []byte(pick("x", "y")), Timestamp: stamp()}
			if cf == "Super1" {
				mu.SuperColumn, mu.Name = []byte(pick(scs...)), Long(int64(rng.IntN(3)))
			}
			expiresIn := -1
			switch r := rng.IntN(20); {
			case r == 0:
				mu = engine.Mutation{ColumnFamily: cf, Timestamp: mu.Timestamp, Delete: true}
			case r == 1 && cf == "Super1":
				mu = engine.Mutation{ColumnFamily: cf, SuperColumn: mu.SuperColumn, Timestamp: mu.Timestamp, Delete: true}
			case r < 4:
				mu.Delete, mu.Value = true, nil
			case r < 12:
				mu.TTL, expiresIn = shortTTL, clock
			case r < 14:
				mu.TTL = longTTL
			}
			Apply(t, st, engine.RowMutation{Key: key, Mutations: []engine.Mutation{mu}})
			rs := state(cf, key)
			switch {
			case mu.Delete && mu.Name == nil && mu.SuperColumn == nil:
				rs.tomb = max(rs.tomb, mu.Timestamp)
			case mu.Delete && mu.Name == nil:
				if t, ok := rs.scs[string(mu.SuperColumn)]; !ok || mu.Timestamp > t {
					rs.scs[string(mu.SuperColumn)] = mu.Timestamp
				}
			default:
				k := string(mu.Name)
				if mu.SuperColumn != nil {
					k = string(mu.SuperColumn) + "\x00" + k
				}
				if old, ok := rs.cols[k]; !ok || mu.Timestamp > old.ts {
					rs.cols[k] = modelTTLCell{ts: mu.Timestamp, deleted: mu.Delete, value: string(mu.Value), expiresIn: expiresIn}
				}
			}
		}
		h.wait(t, expireWait)
		clock++
		for _, k := range keys {
			for _, cf := range []string{"Standard1", "Super1"} {
				if g, w := Get(t, st, cf, k, nil, All(-1)), render(cf, k); g != w {
					t.Fatalf("after wait %d: %s %s\nstore %q\nmodel %q", clock, cf, k, g, w)
				}
			}
		}
	}
}
