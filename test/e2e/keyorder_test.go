package e2e

import (
	"slices"
	"testing"
	"unicode/utf16"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// javaCompare is Java's String.compareTo, which ordered 0.6's
// OrderPreservingPartitioner: UTF-16 code units, a proper prefix first.
func javaCompare(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// TestOrderPreservingKeysInJavaOrder checks, through a real client under
// OrderPreservingPartitioner, that keys with supplementary characters
// (emoji) sort before keys with characters from U+E000 to U+FFFF (private
// use, the specials), as in 0.6, where their UTF-8 bytes sort after: in
// get_range_slices, in start_key paging, in key range bounds and in
// describe_splits.
func TestOrderPreservingKeysInJavaOrder(t *testing.T) {
	conf := withPartitioner(t, "storage-conf-0.6-test.xml", "org.apache.cassandra.dht.OrderPreservingPartitioner")
	n := start(t, conf)
	keys := []string{
		"a", "a\U0001F600", "a\uE000", "a\uF8FF", "a\uFFFD", "a\U00010000", "a\U0010FFFF", "a\uD7FF",
		"\U0001F600", "\uE000", "\uFFFF", "\U0001F600\uE000", "\U0001F600\U0001F600", "\uE000\U0001F600",
		"b", "b\U0001F4A9z", "b\uF000z", "é", "中", "z",
	}
	want := slices.Clone(keys)
	slices.SortFunc(want, javaCompare)
	if slices.IsSortedFunc(want, func(a, b string) int { return cmpBytes(a, b) }) {
		t.Fatal("the keys are in the same order as UTF-8 bytes; the test would prove nothing")
	}
	parent := &cassandra.ColumnParent{ColumnFamily: "Standard1"}
	for _, framed := range []bool{false, true} {
		c := n.client(framed)
		ks := "Keyspace2"
		if framed {
			ks = "Keyspace3"
		}
		for _, k := range keys {
			must(t, c.Insert(ctx, ks, k, path("Standard1", nil, []byte("c")), []byte(k), 1, one))
		}
		rows := func(start, end string, count int32) []string {
			t.Helper()
			rs, err := c.GetRangeSlices(ctx, ks, parent, all(),
				&cassandra.KeyRange{StartKey: thrift.StringPtr(start), EndKey: thrift.StringPtr(end), Count: count}, one)
			must(t, err)
			var out []string
			for _, r := range rs {
				if len(r.Columns) != 1 || string(r.Columns[0].Column.Value) != r.Key {
					t.Fatalf("row %+q came back with %s", r.Key, names(r.Columns))
				}
				out = append(out, r.Key)
			}
			return out
		}

		if got := rows("", "", 100); !slices.Equal(got, want) {
			t.Fatalf("get_range_slices over every key:\n got %+q\nwant %+q", got, want)
		}

		// Paging as 0.6 clients did: each page starts at the last key of
		// the one before, which comes back again.
		var paged []string
		from := ""
		for page := 0; page < 50; page++ {
			got := rows(from, "", 3)
			if page > 0 {
				if len(got) == 0 || got[0] != from {
					t.Fatalf("page %d = %+q, want it to start at %+q", page, got, from)
				}
				got = got[1:]
			}
			paged = append(paged, got...)
			if len(got) < 2 {
				break
			}
			from = got[len(got)-1]
		}
		if !slices.Equal(paged, want) {
			t.Fatalf("paging by start_key:\n got %+q\nwant %+q", paged, want)
		}

		// Key bounds are inclusive and in Java's order: from "a" to
		// "a\uE000" takes the supplementary keys in between.
		if got, w := rows("a", "a\uE000", 100), []string{"a", "a\uD7FF", "a\U00010000", "a\U0001F600", "a\U0010FFFF", "a\uE000"}; !slices.Equal(got, w) {
			t.Errorf("get_range_slices from a to a\\uE000 = %+q, want %+q", got, w)
		}
		_, err := c.GetRangeSlices(ctx, ks, parent, all(),
			&cassandra.KeyRange{StartKey: thrift.StringPtr("a\uE000"), EndKey: thrift.StringPtr("a\U0001F600"), Count: 10}, one)
		if w := why(t, err); w != "start key must sort before (or equal to) finish key in your partitioner!" {
			t.Errorf("a key range from a\\uE000 to a\\U0001F600: %q", w)
		}
		// The old deprecated call pages the same way.
		rs, err := c.GetRangeSlice(ctx, ks, parent, all(), "\U0001F600", "", 3, one)
		must(t, err)
		i := slices.Index(want, "\U0001F600")
		if len(rs) != 3 || rs[0].Key != want[i] || rs[1].Key != want[i+1] || rs[2].Key != want[i+2] {
			t.Errorf("get_range_slice from U+1F600 returned %d rows, want %+q", len(rs), want[i:i+3])
		}
	}

	// describe_splits: with one key a split, every key but the last is a
	// boundary, in Java's order (the tokens are the keys).
	splits, err := n.client(false).DescribeSplits(ctx, "", "", 1)
	must(t, err)
	if len(splits) < 3 || splits[0] != "" || splits[len(splits)-1] != "" {
		t.Fatalf("describe_splits = %+q", splits)
	}
	inner := splits[1 : len(splits)-1]
	if !slices.IsSortedFunc(inner, javaCompare) {
		t.Errorf("describe_splits not in Java's order: %+q", inner)
	}
	if !slices.Equal(inner, want[:len(want)-1]) {
		t.Errorf("describe_splits:\n got %+q\nwant %+q", inner, want[:len(want)-1])
	}
	// A split range between two tokens keeps to Java's order too.
	sub, err := n.client(true).DescribeSplits(ctx, "a", "a\uE000", 1)
	must(t, err)
	if len(sub) < 2 || sub[0] != "a" || sub[len(sub)-1] != "a\uE000" {
		t.Fatalf("describe_splits(a, a\\uE000) = %+q", sub)
	}
	for _, k := range sub[1 : len(sub)-1] {
		if javaCompare(k, "a") <= 0 || javaCompare(k, "a\uE000") > 0 {
			t.Errorf("describe_splits(a, a\\uE000) gave %+q, outside the range", k)
		}
	}
	if !slices.Contains(sub, "a\U0001F600") {
		t.Errorf("describe_splits(a, a\\uE000) = %+q lacks a\\U0001F600", sub)
	}
}

func cmpBytes(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
