package ldbstore

import (
	"bytes"

	"github.com/syndtr/goleveldb/leveldb/iterator"
)

// cursor is a LevelDB iterator that skips seeks it can prove redundant. A
// seek in LevelDB repositions every level's iterator, which is most of the
// cost of a read, and a read often seeks to where the iterator already is:
// a row's tombstone key, its first column and its first byte are usually
// the same entry, and a row read to its end by steps leaves the iterator on
// the next row, where the range walk then seeks.
//
// After Seek(lo), no stored key lies in [lo, Key()); after a Next from lo,
// none lies in (lo, Key()). A later Seek to a target in that interval, or
// equal to Key(), would land on the same entry. Any other move forgets lo.
type cursor struct {
	iterator.Iterator
	lo    []byte
	hasLo bool
	// open reports that lo itself is outside the interval (set by Next).
	open bool
	// seeks counts the seeks passed on to LevelDB.
	seeks int
}

func newCursor(it iterator.Iterator) *cursor { return &cursor{Iterator: it} }

func (c *cursor) Seek(key []byte) bool {
	if c.hasLo && c.Valid() && c.below(key) && bytes.Compare(key, c.Key()) <= 0 {
		return true
	}
	c.lo = append(c.lo[:0], key...)
	c.hasLo, c.open = true, false
	c.seeks++
	return c.Iterator.Seek(key)
}

// below reports whether key lies after the start of the interval.
func (c *cursor) below(key []byte) bool {
	d := bytes.Compare(c.lo, key)
	return d < 0 || d == 0 && !c.open
}

func (c *cursor) Next() bool {
	if c.hasLo = c.Valid(); c.hasLo {
		c.lo = append(c.lo[:0], c.Key()...)
		c.open = true
	}
	return c.Iterator.Next()
}

func (c *cursor) Prev() bool  { c.hasLo = false; return c.Iterator.Prev() }
func (c *cursor) First() bool { c.hasLo = false; return c.Iterator.First() }
func (c *cursor) Last() bool  { c.hasLo = false; return c.Iterator.Last() }
