package cqlstore

import (
	"bytes"
	"testing"
)

// A row of more inserts than newInserts made room for binds each its
// own values.
func TestInsertsBindEachColumn(t *testing.T) {
	b := newInserts(raw("k"), 1)
	var args [][]any
	for i := range 5 {
		args = append(args, b.insert(raw{byte('a' + i)}, raw{byte('0' + i)}, int64(100+i)))
	}
	for i, a := range args {
		if len(a) != 4 {
			t.Fatalf("insert %d bound %d values, want 4", i, len(a))
		}
		if k := a[0].(raw); string(k) != "k" {
			t.Errorf("insert %d: key %q", i, k)
		}
		if n, v := *a[1].(*raw), *a[2].(*raw); string(n) != string(rune('a'+i)) || string(v) != string(rune('0'+i)) {
			t.Errorf("insert %d: name %q value %q", i, n, v)
		}
		ts, err := a[3].(*stamp).MarshalCQL(nil)
		if err != nil || !bytes.Equal(ts, []byte{0, 0, 0, 0, 0, 0, 0, byte(100 + i)}) {
			t.Errorf("insert %d: timestamp %x, %v", i, ts, err)
		}
	}
}
