package ldbstore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/engine"
)

// TestNarrowSliceOfWideRows reads a few columns of many wide rows, the
// shape whose rows a range walk leaves by seeking past their ends, and
// checks every row against what was written: deleted columns inside the
// slice are skipped and the slice filled from further on, rows deleted
// whole or column by column stay as ghosts with no columns, a row
// tombstone hides the older columns of a row written again, a super
// column family and subcolumns of one super column are read the same way,
// and a row's last column does not leak into the next row.
func TestNarrowSliceOfWideRows(t *testing.T) {
	st := newStore(t)
	const width = 40
	name := func(c int) string { return fmt.Sprintf("c%03d", c) }
	var keys []string
	for r := range 12 {
		k := fmt.Sprintf("row%02d", r)
		keys = append(keys, k)
		row := engine.RowMutation{Key: k}
		for c := range width {
			row.Mutations = append(row.Mutations, engine.Mutation{ColumnFamily: "Standard1", Name: []byte(name(c)), Value: []byte(k + "/" + name(c)), Timestamp: 1})
		}
		apply(t, st, row)
	}
	// row01: the first, third and fourth columns deleted.
	for _, c := range []int{0, 2, 3} {
		apply(t, st, del("Standard1", "row01", nil, []byte(name(c)), 2))
	}
	// row03: deleted whole: a ghost.
	apply(t, st, del("Standard1", "row03", nil, nil, 2))
	// row05: every column deleted one by one: a ghost too.
	for c := range width {
		apply(t, st, del("Standard1", "row05", nil, []byte(name(c)), 2))
	}
	// row07: deleted whole, then two columns written again after it.
	apply(t, st, del("Standard1", "row07", nil, nil, 2))
	apply(t, st, put("Standard1", "row07", name(30), "again", 3))
	apply(t, st, put("Standard1", "row07", name(10), "again", 3))
	// row09: a newer version of its second column.
	apply(t, st, put("Standard1", "row09", name(1), "newer", 5))
	// A row of another column family sorts between these rows' keys.
	apply(t, st, put("Standard2", "row04", "x", "other family", 1))

	want := func(k string, n int) string {
		var cols []string
		for c := 0; c < width && len(cols) < n; c++ {
			v := k + "/" + name(c)
			switch {
			case k == "row01" && (c == 0 || c == 2 || c == 3), k == "row03", k == "row05":
				continue
			case k == "row07":
				if c != 10 && c != 30 {
					continue
				}
				cols = append(cols, name(c)+"=again@3")
				continue
			case k == "row09" && c == 1:
				cols = append(cols, name(c)+"=newer@5")
				continue
			}
			cols = append(cols, name(c)+"="+v+"@1")
		}
		return k + ":" + strings.Join(cols, " ")
	}
	for _, n := range []int{1, 3, 5, width - 1, width} {
		for _, max := range []int{1, 5, 100} {
			rows, err := st.Range(ctx, ks, engine.TokenRange{StartInclusive: true}, engine.Query{ColumnFamily: "Standard1", Predicate: all(n)}, max)
			if err != nil {
				t.Fatal(err)
			}
			var got, exp []string
			for _, r := range rows {
				got = append(got, r.Key+":"+render(r))
			}
			for _, k := range keys[:min(max, len(keys))] {
				exp = append(exp, want(k, n))
			}
			expect(t, strings.Join(got, "\n"), strings.Join(exp, "\n"))
		}
	}

	// Super column family: 3 of each row's 20 super columns, and the
	// subcolumns of one super column, row by row.
	for r := range 4 {
		k := fmt.Sprintf("s%d", r)
		row := engine.RowMutation{Key: k}
		for sc := range 20 {
			for sub := range 3 {
				row.Mutations = append(row.Mutations, engine.Mutation{ColumnFamily: "Super1", SuperColumn: []byte(name(sc)), Name: long(int64(sub)), Value: []byte("v"), Timestamp: 1})
			}
		}
		apply(t, st, row)
	}
	apply(t, st, del("Super1", "s1", []byte(name(0)), nil, 2))
	apply(t, st, del("Super1", "s2", []byte(name(5)), long(1), 2))
	rows, err := st.Range(ctx, ks, engine.TokenRange{StartInclusive: true}, engine.Query{ColumnFamily: "Super1", Predicate: all(3)}, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Key+":"+render(r))
	}
	sup := func(names ...int) string {
		var out []string
		for _, n := range names {
			out = append(out, name(n)+"{0=v@1 1=v@1 2=v@1}")
		}
		return strings.Join(out, " ")
	}
	expect(t, strings.Join(got, "\n"), strings.Join([]string{"s0:" + sup(0, 1, 2), "s1:" + sup(1, 2, 3), "s2:" + sup(0, 1, 2), "s3:" + sup(0, 1, 2)}, "\n"))
	rows, err = st.Range(ctx, ks, engine.TokenRange{StartInclusive: true}, engine.Query{ColumnFamily: "Super1", SuperColumn: []byte(name(5)), Predicate: all(2)}, 100)
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, r := range rows {
		got = append(got, r.Key+":"+render(r))
	}
	expect(t, strings.Join(got, "\n"), "s0:0=v@1 1=v@1\ns1:0=v@1 1=v@1\ns2:0=v@1 2=v@1\ns3:0=v@1 1=v@1")
}

// TestArenaCopiesAreIndependent checks that the copies an arena hands out
// hold their own bytes: later copies, appends to a copy and changes to the
// source leave the others as they were.
func TestArenaCopiesAreIndependent(t *testing.T) {
	var a arena
	src := []byte("abc")
	x := a.copy(src)
	y := a.copy([]byte("def"))
	src[0] = 'z'
	x = append(x, "XYZ"...)
	big := a.copy(make([]byte, arenaMaxCopy+1))
	empty := a.copy(nil)
	if string(x) != "abcXYZ" || string(y) != "def" || len(big) != arenaMaxCopy+1 || empty == nil || len(empty) != 0 {
		t.Fatalf("x %q, y %q, big %d bytes, empty %v", x, y, len(big), empty)
	}
	var none *arena
	if c := none.copy([]byte("q")); string(c) != "q" {
		t.Fatalf("nil arena copied %q", c)
	}
	// Many copies cross chunk boundaries without mixing.
	var copies [][]byte
	for i := range 2000 {
		copies = append(copies, a.copy([]byte(fmt.Sprintf("value-%d", i))))
	}
	for i, c := range copies {
		if string(c) != fmt.Sprintf("value-%d", i) {
			t.Fatalf("copy %d = %q", i, c)
		}
	}
}

// TestRangeSeeksOncePerWideRowAndNotForNarrowOnes counts the seeks a range
// walk passes to LevelDB: one per row whose slice ends before the row
// does, and none for rows read to their end by steps, which leave the
// iterator on the next row already. The rows read must not change.
func TestRangeSeeksOncePerWideRowAndNotForNarrowOnes(t *testing.T) {
	st := newStore(t)
	for r := range 30 {
		k := fmt.Sprintf("r%02d", r)
		row := engine.RowMutation{Key: k}
		for c := range 3 + r%2*20 { // narrow rows of 3, wide rows of 23
			row.Mutations = append(row.Mutations, engine.Mutation{ColumnFamily: "Standard1", Name: []byte(fmt.Sprintf("c%02d", c)), Value: []byte("v"), Timestamp: 1})
		}
		apply(t, st, row)
	}
	// A row tombstone older than the columns: read in passing.
	apply(t, st, del("Standard1", "r04", nil, nil, 0))
	f, err := st.family(ks, "Standard1")
	if err != nil {
		t.Fatal(err)
	}
	walk := func(count int) (seeks int, rendered string) {
		it := newCursor(st.db.NewIterator(nil, nil))
		defer it.Release()
		q := engine.Query{ColumnFamily: "Standard1", Predicate: all(count)}
		var rows []string
		err := st.walkRows(it, f, engine.TokenRange{StartInclusive: true}, func(key string, row []byte) error {
			r, err := readRow(it, f, row, q, nil, st.now())
			rows = append(rows, key+":"+render(r))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return it.seeks, strings.Join(rows, " ")
	}
	want := func(count int) string {
		var rows []string
		for r := range 30 {
			var cols []string
			for c := range min(count, 3+r%2*20) {
				cols = append(cols, fmt.Sprintf("c%02d=v@1", c))
			}
			rows = append(rows, fmt.Sprintf("r%02d:", r)+strings.Join(cols, " "))
		}
		return strings.Join(rows, " ")
	}
	// Every row read to its end: only the first seek.
	seeks, got := walk(100)
	expect(t, got, want(100))
	if seeks != 1 {
		t.Errorf("rows read to their end: %d seeks, want 1", seeks)
	}
	// 5 columns: the 15 wide rows are left by a seek each, the narrow
	// ones by steps.
	seeks, got = walk(5)
	expect(t, got, want(5))
	if seeks != 1+15 {
		t.Errorf("5 columns of each row: %d seeks, want 16", seeks)
	}
}
