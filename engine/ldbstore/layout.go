package ldbstore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"sort"
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
// timestamp at or before at is shadowed. ranges are the range deletions
// (the 19.x API's range tombstones) of names under it: of the row's
// columns or super columns for a row tombstone, of the super column's
// subcolumns for a super column tombstone.
type tombstone struct {
	at        int64
	localTime uint32 // seconds; when it may be purged after GCGraceSeconds
	ranges    []rangeTomb
}

// rangeTomb deletes, at its timestamp, the names whose encodings (the
// stored keys after the row's or super column's names prefix) lie in
// [lo, hi): lo empty from the first name, hi nil up to the last. These
// are the bounds a forward slice from the range's start to its finish
// reads between (startScan, bound), so a range deletion deletes what a
// slice of the same bounds reads.
type rangeTomb struct {
	lo, hi    []byte
	at        int64
	localTime uint32
}

// covers reports whether the encoded name suffix lies in r.
func (r rangeTomb) covers(suffix []byte) bool {
	return bytes.Compare(suffix, r.lo) >= 0 && (r.hi == nil || bytes.Compare(suffix, r.hi) < 0)
}

// contains reports whether r covers every name o covers.
func (r rangeTomb) contains(o rangeTomb) bool {
	if bytes.Compare(o.lo, r.lo) < 0 {
		return false
	}
	return r.hi == nil || (o.hi != nil && bytes.Compare(o.hi, r.hi) <= 0)
}

// noTombstone is 0.6's "not deleted": Long.MIN_VALUE, which still shadows a
// column written at exactly Long.MIN_VALUE.
var noTombstone = tombstone{at: minTimestamp}

const minTimestamp = -1 << 63

func (t tombstone) shadows(ts int64) bool { return ts <= t.at }

// shadowsName reports whether t shadows a version with timestamp ts of
// the name whose encoding, after the names prefix t applies to, is suffix.
func (t tombstone) shadowsName(suffix []byte, ts int64) bool {
	if ts <= t.at {
		return true
	}
	for _, r := range t.ranges {
		if ts <= r.at && r.covers(suffix) {
			return true
		}
	}
	return false
}

// over returns the latest deletion t makes of the name whose encoding is
// suffix: its own, or that of a range covering the name.
func (t tombstone) over(suffix []byte) int64 {
	at := t.at
	for _, r := range t.ranges {
		if r.at > at && r.covers(suffix) {
			at = r.at
		}
	}
	return at
}

// set reports whether t deletes everything under it at some time.
func (t tombstone) set() bool { return t.at != minTimestamp || t.localTime != 0 }

// empty reports whether t deletes nothing at all.
func (t tombstone) empty() bool { return !t.set() && len(t.ranges) == 0 }

// withRange returns t with r added, and whether that changed t: a range
// that t or one of its ranges shadows already is left out, and ranges the
// new one shadows are dropped, so that deleting the same run again does
// not grow the tombstone.
func (t tombstone) withRange(r rangeTomb) (tombstone, bool) {
	if r.at <= t.at {
		return t, false
	}
	for _, o := range t.ranges {
		if o.at >= r.at && o.contains(r) {
			return t, false
		}
	}
	out := t
	out.ranges = make([]rangeTomb, 0, len(t.ranges)+1)
	for _, o := range t.ranges {
		if !(o.at <= r.at && r.contains(o)) {
			out.ranges = append(out.ranges, o)
		}
	}
	out.ranges = append(out.ranges, r)
	sort.SliceStable(out.ranges, func(i, j int) bool { return bytes.Compare(out.ranges[i].lo, out.ranges[j].lo) < 0 })
	return out, true
}

// raisedTo returns the tombstone that deletes everything at n, keeping
// the ranges of t that are later.
func (t tombstone) raisedTo(n tombstone) tombstone {
	for _, r := range t.ranges {
		if r.at > n.at {
			n.ranges = append(n.ranges, r)
		}
	}
	return n
}

// purged returns t without what was deleted before cutoff (its own
// deletion, and each range), and whether anything was dropped.
func (t tombstone) purged(cutoff uint32) (tombstone, bool) {
	out, changed := t, false
	if t.set() && t.localTime < cutoff {
		out.at, out.localTime, changed = noTombstone.at, noTombstone.localTime, true
	}
	out.ranges = nil
	for _, r := range t.ranges {
		if r.localTime < cutoff || r.at <= out.at {
			changed = true
			continue
		}
		out.ranges = append(out.ranges, r)
	}
	return out, changed
}

// A tombstone is stored as at(8) localTime(4), followed by each range as
// at(8) localTime(4) flags(1) uvarint(len) lo, and when flag rangeHi is set
// uvarint(len) hi. A tombstone of ranges alone stores noTombstone first.
const rangeHi = 0x01

func appendTombstone(dst []byte, t tombstone) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(t.at))
	dst = binary.BigEndian.AppendUint32(dst, t.localTime)
	for _, r := range t.ranges {
		dst = binary.BigEndian.AppendUint64(dst, uint64(r.at))
		dst = binary.BigEndian.AppendUint32(dst, r.localTime)
		var flags byte
		if r.hi != nil {
			flags = rangeHi
		}
		dst = append(dst, flags)
		dst = binary.AppendUvarint(dst, uint64(len(r.lo)))
		dst = append(dst, r.lo...)
		if r.hi != nil {
			dst = binary.AppendUvarint(dst, uint64(len(r.hi)))
			dst = append(dst, r.hi...)
		}
	}
	return dst
}

func decodeTombstone(b []byte) (tombstone, error) {
	if len(b) < 12 {
		return tombstone{}, errCorrupt
	}
	t := tombstone{at: int64(binary.BigEndian.Uint64(b)), localTime: binary.BigEndian.Uint32(b[8:])}
	b = b[12:]
	for len(b) > 0 {
		if len(b) < 13 {
			return tombstone{}, errCorrupt
		}
		r := rangeTomb{at: int64(binary.BigEndian.Uint64(b)), localTime: binary.BigEndian.Uint32(b[8:])}
		flags := b[12]
		b = b[13:]
		var err error
		if r.lo, b, err = uvarintBytes(b); err != nil {
			return tombstone{}, err
		}
		if flags&rangeHi != 0 {
			if r.hi, b, err = uvarintBytes(b); err != nil {
				return tombstone{}, err
			}
		}
		t.ranges = append(t.ranges, r)
	}
	return t, nil
}

// uvarintBytes splits a uvarint-prefixed byte string off b, as a copy (a
// tombstone outlives the iterator it was read from).
func uvarintBytes(b []byte) ([]byte, []byte, error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || uint64(len(b)-w) < n {
		return nil, nil, errCorrupt
	}
	return clone(b[w : w+int(n)]), b[w+int(n):], nil
}

// later returns whichever of a and b deletes everything later, for
// shadowing by timestamp alone (ranges are left to the reads).
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
