package cqlstore

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
)

// Compare-and-set on the cluster: the condition's cases, the current
// columns of a failure, an expected column kept live with its TTL, reads
// at the serial levels, and racing creators of which exactly one wins.
func TestCompareAndSet(t *testing.T) {
	s := storetest.TestSchema(t, "org.apache.cassandra.dht.RandomPartitioner")
	st, _ := openFresh(t, s, 864000)
	ctx := engine.WithConsistency(context.Background(), engine.Quorum)
	ks := storetest.Keyspace
	put := func(name, value string) engine.Mutation {
		return engine.Mutation{ColumnFamily: "Standard1", Name: []byte(name), Value: []byte(value), Timestamp: 1}
	}
	exp := func(kv ...string) []engine.Column {
		var out []engine.Column
		for i := 0; i < len(kv); i += 2 {
			out = append(out, engine.Column{Name: []byte(kv[i]), Value: []byte(kv[i+1])})
		}
		return out
	}
	cas := func(key string, local bool, expected []engine.Column, updates ...engine.Mutation) (bool, string) {
		t.Helper()
		ok, cur, err := st.CompareAndSet(ctx, ks, key, engine.CAS{ColumnFamily: "Standard1", Expected: expected, Updates: updates, LocalSerial: local})
		if err != nil {
			t.Fatal(err)
		}
		s := ""
		for _, c := range cur {
			s += string(c.Name) + "=" + string(c.Value) + " "
		}
		return ok, s
	}
	for _, c := range []struct {
		what     string
		expected []engine.Column
		update   engine.Mutation
		ok       bool
		current  string
	}{
		{"create", nil, put("b", "2"), true, ""},
		{"create again", nil, put("a", "1"), false, "b=2 "},
		{"matching, updating another name", exp("b", "2"), put("a", "1"), true, ""},
		{"matching, updating the expected name", exp("a", "1"), put("a", "10"), true, ""},
		{"stale", exp("b", "1", "a", "10"), put("c", "3"), false, "a=10 b=2 "},
		{"missing name", exp("a", "10", "zz", "1"), put("c", "3"), false, "a=10 "},
		{"only missing names", exp("zz", "1"), put("c", "3"), false, ""},
	} {
		if ok, cur := cas("k", c.what == "create again", c.expected, c.update); ok != c.ok || cur != c.current {
			t.Errorf("%s: got %v %q, want %v %q", c.what, ok, cur, c.ok, c.current)
		}
	}

	// An expected column the call does not update keeps its value and
	// the time it has left to live.
	if err := st.Apply(ctx, ks, []engine.RowMutation{{Key: "ttl", Mutations: []engine.Mutation{
		{ColumnFamily: "Standard1", Name: []byte("e"), Value: []byte("v"), Timestamp: time.Now().UnixMicro(), TTL: 3600}}}}); err != nil {
		t.Fatal(err)
	}
	if ok, cur := cas("ttl", false, exp("e", "v"), put("f", "1")); !ok {
		t.Fatalf("expecting the expiring column: refused with %q", cur)
	}
	serial := engine.WithConsistency(ctx, 9)
	row, err := st.Get(serial, ks, "ttl", engine.Query{ColumnFamily: "Standard1", Predicate: engine.Predicate{Count: 10}})
	if err != nil {
		t.Fatal(err)
	}
	if len(row.Columns) != 2 || string(row.Columns[0].Value) != "v" || row.Columns[0].TTL <= 3500 || row.Columns[1].TTL != 0 {
		t.Errorf("after the cas: %+v", row.Columns)
	}
	// A range read at a serial level reads at QUORUM: the cluster serves
	// serial reads of one partition only.
	if _, err := st.Range(engine.WithConsistency(ctx, 10), ks, engine.TokenRange{}, engine.Query{ColumnFamily: "Standard1", Predicate: engine.Predicate{Count: 10}}, 10); err != nil {
		t.Errorf("range read at LOCAL_SERIAL: %v", err)
	}

	// Racing creators of one row, writing one name or each its own (the
	// second needs the partition's fence: IF NOT EXISTS on each name
	// would let them all win): exactly one wins, and the row holds only
	// what it wrote. The last race is on a row deleted before, whose
	// ghost the fence starts from. A node too busy to finish a round of
	// Paxos in time answers a creator TimedOut, which leaves its outcome
	// unknown to it: then at most one wins, and the row holds the value of
	// one creator that won or timed out.
	if err := st.Apply(ctx, ks, []engine.RowMutation{{Key: "race-deleted", Mutations: []engine.Mutation{
		{ColumnFamily: "Standard1", Name: []byte("old"), Value: []byte("v"), Timestamp: 1}}}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, ks, []engine.RowMutation{{Key: "race-deleted", Mutations: []engine.Mutation{
		{ColumnFamily: "Standard1", Delete: true, Timestamp: 2}}}}); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		key      string
		n        int
		ownNames bool
	}{{"race", 16, false}, {"race-names", 32, true}, {"race-deleted", 32, true}} {
		// outcome[i]: "won", "lost" or "timed out".
		outcome := make([]string, r.n)
		var wg sync.WaitGroup
		for i := range r.n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				name := "owner"
				if r.ownNames {
					name += strconv.Itoa(i)
				}
				ok, _, err := st.CompareAndSet(ctx, ks, r.key, engine.CAS{ColumnFamily: "Standard1", Updates: []engine.Mutation{put(name, strconv.Itoa(i))}})
				switch {
				case errors.Is(err, engine.ErrTimedOut):
					outcome[i] = "timed out"
				case err != nil:
					t.Error(err)
				case ok:
					outcome[i] = "won"
				default:
					outcome[i] = "lost"
				}
			}()
		}
		wg.Wait()
		wins, timeouts := 0, 0
		for _, o := range outcome {
			switch o {
			case "won":
				wins++
			case "timed out":
				timeouts++
			}
		}
		if wins > 1 || (wins == 0 && timeouts == 0) {
			t.Errorf("%s: %d of %d creators won (%d timed out)", r.key, wins, r.n, timeouts)
		}
		if timeouts > 0 {
			t.Logf("%s: %d of %d creators timed out (the node was slow to finish Paxos rounds)", r.key, timeouts, r.n)
		}
		row, err := st.Get(serial, ks, r.key, engine.Query{ColumnFamily: "Standard1", Predicate: engine.Predicate{Count: 100}})
		if err != nil {
			t.Fatal(err)
		}
		if len(row.Columns) == 1 {
			if i, err := strconv.Atoi(string(row.Columns[0].Value)); err != nil || i < 0 || i >= r.n ||
				(outcome[i] != "won" && outcome[i] != "timed out") || (wins == 1 && outcome[i] != "won") {
				t.Errorf("%s: the row holds %q, not the value of the creator that won", r.key, row.Columns[0].Value)
			}
		}
		if len(row.Columns) != 1 && (wins > 0 || len(row.Columns) != 0) {
			t.Errorf("%s: the row holds %d columns after the race, want the winner's one", r.key, len(row.Columns))
		}
	}
}
