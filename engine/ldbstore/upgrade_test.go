package ldbstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
)

// downgradeToRowKeyVersion1 rewrites a closed OrderPreservingPartitioner
// store as thriftd wrote it before row key version 2: row keys as their
// escaped UTF-8 bytes, and no row_key_version in the stored schema.
func downgradeToRowKeyVersion1(t *testing.T, dir string) {
	t.Helper()
	db, err := leveldb.OpenFile(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p := dht.OrderPreservingPartitioner{}
	batch := new(leveldb.Batch)
	for _, region := range []struct {
		prefix byte
		head   int
	}{{prefixData, 5}, {prefixPurge, 9}} {
		it := db.NewIterator(util.BytesPrefix([]byte{region.prefix}), nil)
		for it.Next() {
			k := it.Key()
			key, _, rest, err := p.DecodeRowKey(k[region.head:])
			if err != nil {
				t.Fatal(err)
			}
			old := append(append(slices.Clone(k[:region.head]), escapeV1(key)...), rest...)
			if !bytes.Equal(old, k) {
				batch.Delete(slices.Clone(k))
				batch.Put(old, slices.Clone(it.Value()))
			}
		}
		it.Release()
	}
	raw, err := db.Get(metaSchema, nil)
	if err != nil {
		t.Fatal(err)
	}
	var stored map[string]any
	if err := json.Unmarshal(raw, &stored); err != nil {
		t.Fatal(err)
	}
	if stored["row_key_version"] != float64(2) {
		t.Fatalf("a new OrderPreservingPartitioner store records row_key_version %v, want 2", stored["row_key_version"])
	}
	delete(stored, "row_key_version")
	delete(stored, "row_heads")
	raw, _ = json.Marshal(stored)
	batch.Put(metaSchema, raw)
	if batch.Len() < 3 {
		t.Fatalf("only %d writes to downgrade the store; no key changed encoding", batch.Len())
	}
	// Row key version 1 predates row heads.
	dropRowHeads(t, db, batch)
	if err := db.Write(batch, nil); err != nil {
		t.Fatal(err)
	}
}

// escapeV1 is row key version 1: every 0x00 as 0x00 0xFF, then 0x00 0x01.
func escapeV1(key string) []byte {
	var out []byte
	for i := 0; i < len(key); i++ {
		out = append(out, key[i])
		if key[i] == 0 {
			out = append(out, 0xFF)
		}
	}
	return append(out, 0, 1)
}

func rangeKeys(t *testing.T, st *Store) []string {
	t.Helper()
	rows, err := st.Range(ctx, ks, engine.TokenRange{StartInclusive: true}, engine.Query{ColumnFamily: "Standard1", Predicate: all(10)}, 100)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range rows {
		keys = append(keys, r.Key)
	}
	return keys
}

// TestUpgradeRowKeysOfOrderPreservingStore opens a store written with
// OrderPreservingPartitioner's version 1 row keys (UTF-8 byte order) and
// checks that start-up rewrites them into Java's order, keeping every row,
// column, tombstone and purge entry.
func TestUpgradeRowKeysOfOrderPreservingStore(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return now }
	dir := t.TempDir()
	s := testSchema(t, "OrderPreservingPartitioner")
	keys := []string{"a", "a\U0001F600", "a\uE000", "a\uFFFF", "\U0010FFFF", "\uE000", "z", "\x00\uF8FF", "中"}
	st := open(t, dir, s, Options{GCGrace: time.Hour, Now: clock})
	for i, k := range keys {
		apply(t, st, put("Standard1", k, "c", k, int64(i+1)), put("Standard1", k, "gone", "x", 1))
	}
	apply(t, st, del("Standard1", "\U0001F600dead", nil, nil, 5), del("Standard1", "a\uE000", nil, []byte("gone"), 5))
	st.Close()

	downgradeToRowKeyVersion1(t, dir)

	st = open(t, dir, s, Options{GCGrace: time.Hour, Now: clock})
	want := append(slices.Clone(keys), "\U0001F600dead")
	slices.SortFunc(want, func(a, b string) int {
		return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
	})
	if got := rangeKeys(t, st); !slices.Equal(got, want) {
		t.Fatalf("after the upgrade rows are in order\n%+q\nwant Java's\n%+q", got, want)
	}
	for i, k := range keys {
		want := fmt.Sprintf("c=%s@%d gone=x@1", k, i+1)
		if k == "a\uE000" {
			want = fmt.Sprintf("c=%s@%d", k, i+1) // gone was deleted
		}
		expect(t, get(t, st, "Standard1", k, nil, all(10)), want)
	}
	// The purge index was rewritten too: the tombstones expire and go.
	now = now.Add(2 * time.Hour)
	if n, err := st.Purge(ctx); err != nil || n != 2 {
		t.Errorf("purge after the upgrade removed %d, %v; want 2 (a row tombstone and a column tombstone)", n, err)
	}
	if got := rangeKeys(t, st); slices.Contains(got, "\U0001F600dead") {
		t.Errorf("the purged row is still listed: %+q", got)
	}
	st.Close()

	// A second start finds the current version and changes nothing.
	st = open(t, dir, s, Options{GCGrace: time.Hour, Now: clock})
	if got := rangeKeys(t, st); len(got) != len(keys) {
		t.Errorf("after reopening: %+q", got)
	}
	st.Close()
}

func TestNewerRowKeyVersionIsRefused(t *testing.T) {
	dir := t.TempDir()
	s := testSchema(t, "OrderPreservingPartitioner")
	open(t, dir, s, Options{}).Close()
	db, err := leveldb.OpenFile(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := db.Get(metaSchema, nil)
	raw = bytes.Replace(raw, []byte(`"row_key_version":2`), []byte(`"row_key_version":3`), 1)
	db.Put(metaSchema, raw, nil)
	db.Close()
	if _, err := Open(dir, s, Options{}); err == nil || !strings.Contains(err.Error(), "row key version 3 of org.apache.cassandra.dht.OrderPreservingPartitioner, newer than this thriftd's 2") {
		t.Errorf("Open of a store with a newer row key version: %v", err)
	}
}

func TestOtherPartitionersStoreNoRowKeyVersion(t *testing.T) {
	dir := t.TempDir()
	open(t, dir, testSchema(t, "RandomPartitioner"), Options{}).Close()
	db, err := leveldb.OpenFile(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	raw, _ := db.Get(metaSchema, nil)
	if bytes.Contains(raw, []byte("row_key_version")) {
		t.Errorf("RandomPartitioner store records a row key version: %s", raw)
	}
}
