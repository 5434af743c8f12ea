package cqlstore

import (
	"bytes"
	"testing"
)

// A cell scanned into the chunks keeps CQL's null apart from the empty
// value, keeps its bytes when the next cells are scanned, and cannot be
// appended to over its neighbour.
func TestCellScanCopies(t *testing.T) {
	s := &cellScan{}
	if got := s.copy(nil); got != nil {
		t.Fatalf("null scanned as %q, want nil", got)
	}
	if got := s.copy([]byte{}); got == nil || len(got) != 0 {
		t.Fatalf("the empty value scanned as %#v, want empty and not nil", got)
	}
	src := []byte("abc")
	a := s.copy(src)
	src[0] = 'X' // the driver reuses its buffer
	b := s.copy([]byte("def"))
	big := s.copy(bytes.Repeat([]byte("z"), 3*maxChunk)) // more than a chunk
	c := s.copy([]byte("ghi"))
	if string(a) != "abc" || string(b) != "def" || len(big) != 3*maxChunk || string(c) != "ghi" {
		t.Fatalf("cells %q %q %q after later scans, want abc def ghi", a, b, c)
	}
	if cap(a) != len(a) {
		t.Fatalf("a cell's capacity is %d, its length %d: an append would overwrite the next cell", cap(a), len(a))
	}
	_ = append(a, 'Q')
	if string(b) != "def" {
		t.Fatalf("an append to a cell changed the next: %q", b)
	}
}
