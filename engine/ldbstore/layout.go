package ldbstore

import (
	"encoding/binary"
	"errors"
)

// Key layout. Everything a column family stores sorts by LevelDB's byte
// order in exactly the order 0.6 reads it: rows by partitioner token, then
// columns by their comparator.
//
//	meta:   0x00 name...                       configuration this store was written with
//	data:   0x01 cf(4) row                     row := partitioner RowKey(token, key)
//	        0x01 cf(4) row 0x00                row tombstone
//	        0x01 cf(4) row 0x01 name           column (Standard)
//	        0x01 cf(4) row 0x01 sc 0x00        super column tombstone (Super)
//	        0x01 cf(4) row 0x01 sc 0x01 name   subcolumn (Super)
//	purge:  0x02 time(4) cf(4) row             a row holding a tombstone written at time
//
// Names (name, sc) are the comparator's self-delimiting encodings, so a
// row's columns are one contiguous run and a super column's subcolumns
// follow its tombstone. Rows and super columns end before 0x02, which
// makes "key + 0x02" the first key after them.
const (
	prefixMeta  = 0x00
	prefixData  = 0x01
	prefixPurge = 0x02

	markTombstone = 0x00
	markNames     = 0x01
	markEnd       = 0x02
)

// Cell values: flags(1) timestamp(8) then the column value, or for a
// tombstone the local deletion time (4, seconds). Row and super column
// tombstones store timestamp(8) time(4).
const flagDeleted = 0x01

var errCorrupt = errors.New("corrupt cell")

// cell is one stored version of a column.
type cell struct {
	ts      int64
	deleted bool
	value   []byte // column value; for a tombstone, the local deletion time
}

func appendCell(dst []byte, c cell) []byte {
	var flags byte
	if c.deleted {
		flags = flagDeleted
	}
	dst = append(dst, flags)
	dst = binary.BigEndian.AppendUint64(dst, uint64(c.ts))
	return append(dst, c.value...)
}

func decodeCell(b []byte) (cell, error) {
	if len(b) < 9 {
		return cell{}, errCorrupt
	}
	return cell{deleted: b[0]&flagDeleted != 0, ts: int64(binary.BigEndian.Uint64(b[1:9])), value: b[9:]}, nil
}

// tombstone is a row or super column deletion: everything with a
// timestamp at or before at is shadowed.
type tombstone struct {
	at        int64
	localTime uint32 // seconds; when it may be purged after GCGraceSeconds
}

// noTombstone is 0.6's "not deleted": Long.MIN_VALUE, which still shadows a
// column written at exactly Long.MIN_VALUE.
var noTombstone = tombstone{at: minTimestamp}

const minTimestamp = -1 << 63

func (t tombstone) shadows(ts int64) bool { return ts <= t.at }

func (t tombstone) set() bool { return t.at != minTimestamp || t.localTime != 0 }

func appendTombstone(dst []byte, t tombstone) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(t.at))
	return binary.BigEndian.AppendUint32(dst, t.localTime)
}

func decodeTombstone(b []byte) (tombstone, error) {
	if len(b) != 12 {
		return tombstone{}, errCorrupt
	}
	return tombstone{at: int64(binary.BigEndian.Uint64(b)), localTime: binary.BigEndian.Uint32(b[8:])}, nil
}

func later(a, b tombstone) tombstone {
	if b.at > a.at {
		return b
	}
	return a
}

// wins reports whether version a supersedes version b under 0.6's
// reconciliation (Column.comparePriority): the higher timestamp wins; on a
// tie a tombstone wins, and between two live versions the greater value.
func wins(a, b cell) bool {
	if a.ts != b.ts {
		return a.ts > b.ts
	}
	if a.deleted != b.deleted {
		return a.deleted
	}
	if a.deleted {
		return false
	}
	return string(a.value) > string(b.value)
}

// cfPrefix returns the data prefix of a column family.
func cfPrefix(id uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte{prefixData}, id)
}

// after returns the smallest key greater than every key that starts with
// p followed by a marker byte.
func after(p []byte) []byte {
	return append(p[:len(p):len(p)], markEnd)
}

// join returns a fresh slice holding p followed by b.
func join(p []byte, b ...byte) []byte {
	out := make([]byte, 0, len(p)+len(b)+16)
	return append(append(out, p...), b...)
}
