package ldbstore

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
)

// A layout fixture is a data directory written by an earlier layout of
// this store, kept in testdata with what its range scans answered then
// (scans.txt), so that an upgrade is tested against the real thing and
// not only against a store rewritten to look old.

// fixtureNow is the clock the fixtures were written and are read at.
var fixtureNow = time.Unix(1_700_000_000, 0)

var fixturePartitioners = []string{"OrderPreservingPartitioner", "RandomPartitioner"}

// TestLayoutFixtureWrites writes the fixture's rows with the checked-out
// layout and holds its scans to those the fixture recorded: the same
// writes answer the same on every layout. With
// THRIFTD_WRITE_LAYOUT_FIXTURE=DIR it also keeps the data directories and
// scans under DIR, one per partitioner: that is how testdata's were made.
func TestLayoutFixtureWrites(t *testing.T) {
	out := os.Getenv("THRIFTD_WRITE_LAYOUT_FIXTURE")
	for _, part := range fixturePartitioners {
		t.Run(part, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), part)
			if out != "" {
				dir = filepath.Join(out, part)
			}
			st, err := Open(filepath.Join(dir, "data"), testSchema(t, part), fixtureOptions())
			if err != nil {
				t.Fatal(err)
			}
			writeFixtureRows(t, st)
			scans := renderFixtureScans(t, st)
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			if out != "" {
				if err := os.WriteFile(filepath.Join(dir, "scans.txt"), []byte(scans), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(filepath.Join("testdata", "layout-before-heads", part, "scans.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if scans != string(want) {
				t.Fatalf("the fixture's writes answer differently than they did:\n%s", firstDiff(scans, string(want)))
			}
		})
	}
}

// writeFixtureRows writes rows of every width a head can hold or not,
// with row, column and super column tombstones and expiring columns, half
// of them flushed into tables and half left in the journal.
func writeFixtureRows(t *testing.T, st *Store) {
	t.Helper()
	rng := rand.New(rand.NewPCG(17, 19))
	for phase := 0; phase < 2; phase++ {
		for i := 0; i < 120; i++ {
			key := fmt.Sprintf("row%03d", rng.IntN(200))
			ts := int64(phase*1000 + i)
			var muts []engine.Mutation
			width := []int{1, 2, 5, 15, 16, 17, 40}[rng.IntN(7)]
			for c := 0; c < width; c++ {
				m := engine.Mutation{ColumnFamily: "Standard1", Name: []byte(fmt.Sprintf("c%02d", rng.IntN(50))), Value: []byte(strings.Repeat("v", rng.IntN(120))), Timestamp: ts}
				switch rng.IntN(10) {
				case 0:
					m.Delete, m.Value = true, nil
				case 1:
					m.TTL = int32(1 + rng.IntN(3600))
				}
				muts = append(muts, m)
			}
			if rng.IntN(15) == 0 {
				muts = append(muts, engine.Mutation{ColumnFamily: "Standard1", Timestamp: ts - 1, Delete: true})
			}
			for c := 0; c < rng.IntN(6); c++ {
				sc := fmt.Sprintf("sc%d", rng.IntN(4))
				if rng.IntN(8) == 0 {
					muts = append(muts, engine.Mutation{ColumnFamily: "Super1", SuperColumn: []byte(sc), Timestamp: ts, Delete: true})
					continue
				}
				muts = append(muts, engine.Mutation{ColumnFamily: "Super1", SuperColumn: []byte(sc), Name: storetest.Long(int64(rng.IntN(9))), Value: []byte("s"), Timestamp: ts})
			}
			if err := st.Apply(ctx, ks, []engine.RowMutation{{Key: key, Mutations: muts}}); err != nil {
				t.Fatal(err)
			}
		}
		if phase == 0 {
			if err := st.Flush(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// fixtureQueries are the scans a fixture records: slices a head answers
// and ones it cannot, over every family.
var fixtureQueries = []engine.Query{
	{ColumnFamily: "Standard1", Predicate: storetest.All(5)},
	{ColumnFamily: "Standard1", Predicate: storetest.All(100)},
	{ColumnFamily: "Standard1", Predicate: engine.Predicate{Count: 3, Reversed: true}},
	{ColumnFamily: "Standard1", Predicate: engine.Predicate{Count: 4, Start: []byte("c10"), Finish: []byte("c30")}},
	{ColumnFamily: "Standard1", Predicate: engine.Predicate{Names: [][]byte{[]byte("c01"), []byte("c25"), []byte("c49")}}},
	{ColumnFamily: "Super1", Predicate: storetest.All(2)},
	{ColumnFamily: "Super1", SuperColumn: []byte("sc1"), Predicate: storetest.All(3)},
}

// renderFixtureScans renders every fixture query over the whole ring, in
// pages of 37 rows.
func renderFixtureScans(t *testing.T, st *Store) string {
	t.Helper()
	var b strings.Builder
	for qi, q := range fixtureQueries {
		fmt.Fprintf(&b, "query %d\n", qi)
		bounds := engine.TokenRange{StartInclusive: true}
		for {
			rows, err := st.Range(ctx, ks, bounds, q, 37)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				writeFixtureRow(&b, r)
			}
			if len(rows) < 37 {
				break
			}
			bounds = engine.TokenRange{Start: st.part.Token(rows[len(rows)-1].Key)}
		}
	}
	return b.String()
}

// writeFixtureRow writes one row a line: the key, then each column as
// name=length of value@timestamp, and expiring columns' ttl.
func writeFixtureRow(b *strings.Builder, r engine.Row) {
	col := func(c engine.Column) {
		name := string(c.Name)
		if len(c.Name) == 8 {
			name = fmt.Sprint(int64(binary.BigEndian.Uint64(c.Name)))
		}
		fmt.Fprintf(b, " %s=%d@%d", name, len(c.Value), c.Timestamp)
		if c.TTL != 0 {
			fmt.Fprintf(b, "/%d", c.TTL)
		}
	}
	b.WriteString(r.Key + ":")
	for _, c := range r.Columns {
		col(c)
	}
	for _, sc := range r.SuperColumns {
		fmt.Fprintf(b, " %s{", sc.Name)
		for _, c := range sc.Columns {
			col(c)
		}
		b.WriteString(" }")
	}
	b.WriteByte('\n')
}
