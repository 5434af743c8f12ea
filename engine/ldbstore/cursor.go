package ldbstore

import (
	"bytes"

	"github.com/syndtr/goleveldb/leveldb/iterator"
)

// cursor is a LevelDB iterator that skips seeks it can prove redundant. A
// seek in LevelDB repositions every level's iterator, which is most of the
// cost of a read, and a read often seeks to where the iterator already is:
// a row's tombstone key, its first column and its first byte are usually
// the same entry.
//
// After Seek(lo), no stored key lies in [lo, Key()), so a later Seek to any
// target in [lo, Key()] would land on the same entry. Any other move
// forgets lo.
type cursor struct {
	iterator.Iterator
	lo    []byte
	hasLo bool
}

func newCursor(it iterator.Iterator) *cursor { return &cursor{Iterator: it} }

func (c *cursor) Seek(key []byte) bool {
	if c.hasLo && c.Valid() && bytes.Compare(c.lo, key) <= 0 && bytes.Compare(key, c.Key()) <= 0 {
		return true
	}
	c.lo = append(c.lo[:0], key...)
	c.hasLo = true
	return c.Iterator.Seek(key)
}

func (c *cursor) Next() bool  { c.hasLo = false; return c.Iterator.Next() }
func (c *cursor) Prev() bool  { c.hasLo = false; return c.Iterator.Prev() }
func (c *cursor) First() bool { c.hasLo = false; return c.Iterator.First() }
func (c *cursor) Last() bool  { c.hasLo = false; return c.Iterator.Last() }
