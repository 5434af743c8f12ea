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
//	index:  0x03 ...                           secondary indexes (index.go)
//	head:   0x04 cf(4) row 0x00|0x01           a row's marker and head (head.go)
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

// Cell values: flags(1) timestamp(8), then for an expiring column (flag
// 0x02) ttl(4) expiresAt(4, Unix seconds), then the column value, or for a
// tombstone the local deletion time (4, seconds). Cells written before
// expiring columns existed have no 0x02 flag and so read as never expiring.
// Row and super column tombstones store timestamp(8) time(4).
const (
	flagDeleted  = 0x01
	flagExpiring = 0x02
)

var errCorrupt = errors.New("corrupt cell")

// cell is one stored version of a column.
type cell struct {
	ts      int64
	deleted bool
	value   []byte // column value; for a tombstone, the local deletion time
	// ttl and expiresAt are an expiring column's time to live as written
	// and the Unix second from which it is no longer live; 0 for a
	// column that never expires.
	ttl       int32
	expiresAt uint32
}

// expired reports whether c is an expiring column whose second of expiry
// has come at now (Unix seconds). An expired column is a tombstone at its
// timestamp, as Cassandra's ExpiringColumn is once isMarkedForDelete.
func (c cell) expired(now int64) bool { return c.expiresAt != 0 && now >= int64(c.expiresAt) }

// live reports whether c is returned by reads at now.
func (c cell) live(now int64) bool { return !c.deleted && !c.expired(now) }

func appendCell(dst []byte, c cell) []byte {
	var flags byte
	if c.deleted {
		flags = flagDeleted
	}
	if c.expiresAt != 0 {
		flags |= flagExpiring
	}
	if dst == nil {
		dst = make([]byte, 0, 17+len(c.value))
	}
	dst = append(dst, flags)
	dst = binary.BigEndian.AppendUint64(dst, uint64(c.ts))
	if c.expiresAt != 0 {
		dst = binary.BigEndian.AppendUint32(dst, uint32(c.ttl))
		dst = binary.BigEndian.AppendUint32(dst, c.expiresAt)
	}
	return append(dst, c.value...)
}

func decodeCell(b []byte) (cell, error) {
	if len(b) < 9 {
		return cell{}, errCorrupt
	}
	c := cell{deleted: b[0]&flagDeleted != 0, ts: int64(binary.BigEndian.Uint64(b[1:9])), value: b[9:]}
	if b[0]&flagExpiring != 0 {
		if len(b) < 17 {
			return cell{}, errCorrupt
		}
		c.ttl = int32(binary.BigEndian.Uint32(b[9:13]))
		c.expiresAt = binary.BigEndian.Uint32(b[13:17])
		c.value = b[17:]
	}
	return c, nil
}

// expiry returns the expiry second of a column written at now (Unix
// seconds) with ttl, 0 for none; past the 32-bit range it saturates, as
// Cassandra's int localExpirationTime caps at Integer.MAX_VALUE.
func expiry(now uint32, ttl int32) uint32 {
	if ttl <= 0 {
		return 0
	}
	e := uint64(now) + uint64(ttl)
	if e > 1<<31-1 {
		e = 1<<31 - 1
	}
	return uint32(e)
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
// tie a tombstone wins (an expiring column expired at now is one), and
// between two live versions the greater value.
func wins(a, b cell, now int64) bool {
	if a.ts != b.ts {
		return a.ts > b.ts
	}
	ad, bd := a.deleted || a.expired(now), b.deleted || b.expired(now)
	if ad != bd {
		return ad
	}
	if ad {
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
