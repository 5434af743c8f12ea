package marshal

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

const uuidSize = 16

// LexicalUUIDType orders 16-byte UUIDs as java.util.UUID.compareTo does:
// the most significant 8 bytes as a signed int64, then the least
// significant 8 bytes as a signed int64. That is not unsigned byte order:
// a UUID starting 0x80 sorts before one starting 0x00.
type LexicalUUIDType struct{}

// Name implements Comparator.
func (LexicalUUIDType) Name() string { return marshalPackage + "LexicalUUIDType" }

// Compare implements Comparator. Names that are not 16 bytes long (never
// valid) fall back to unsigned byte order so the order stays total.
func (LexicalUUIDType) Compare(a, b []byte) int {
	if c, done := compareEmpty(a, b); done {
		return c
	}
	if len(a) != uuidSize || len(b) != uuidSize {
		return bytes.Compare(a, b)
	}
	if c := compareInt64(a[:8], b[:8]); c != 0 {
		return c
	}
	return compareInt64(a[8:], b[8:])
}

func compareInt64(a, b []byte) int {
	x, y := int64(binary.BigEndian.Uint64(a)), int64(binary.BigEndian.Uint64(b))
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// Validate implements Comparator.
func (LexicalUUIDType) Validate(name []byte) error {
	if len(name) != 0 && len(name) != uuidSize {
		return MarshalError("UUIDs must be exactly 16 bytes")
	}
	return nil
}

// The encoding is 0x00 for the empty name, else 0x01 and the 16 bytes with
// the sign bit of each half flipped, which turns the two signed
// comparisons into one unsigned one.
const (
	uuidEmpty   = 0x00
	uuidPresent = 0x01
)

// Encode implements Comparator. A name of the wrong length is padded with
// zeros or cut to 16 bytes.
func (LexicalUUIDType) Encode(dst, name []byte) []byte {
	if len(name) == 0 {
		return append(dst, uuidEmpty)
	}
	var v [uuidSize]byte
	copy(v[:], name)
	v[0] ^= 0x80
	v[8] ^= 0x80
	dst = append(dst, uuidPresent)
	return append(dst, v[:]...)
}

// Decode implements Comparator. The name is a copy, never aliasing enc.
func (LexicalUUIDType) Decode(enc []byte) (name, rest []byte, err error) {
	if len(enc) == 0 {
		return nil, nil, fmt.Errorf("%w: missing UUID", ErrMalformed)
	}
	switch enc[0] {
	case uuidEmpty:
		return enc[1:1], enc[1:], nil
	case uuidPresent:
	default:
		return nil, nil, fmt.Errorf("%w: bad UUID tag %#02x", ErrMalformed, enc[0])
	}
	if len(enc) < 1+uuidSize {
		return nil, nil, fmt.Errorf("%w: short UUID", ErrMalformed)
	}
	name = make([]byte, uuidSize)
	copy(name, enc[1:])
	name[0] ^= 0x80
	name[8] ^= 0x80
	return name, enc[1+uuidSize:], nil
}

// TimeUUIDType orders version 1 UUIDs by their 60-bit timestamp, then by
// all 16 bytes unsigned.
type TimeUUIDType struct{}

// Name implements Comparator.
func (TimeUUIDType) Name() string { return marshalPackage + "TimeUUIDType" }

// Compare implements Comparator. Names too short to hold a timestamp
// (never valid) fall back to unsigned byte order so the order stays total.
func (TimeUUIDType) Compare(a, b []byte) int {
	if c, done := compareEmpty(a, b); done {
		return c
	}
	if len(a) < 8 || len(b) < 8 {
		return bytes.Compare(a, b)
	}
	ta, tb := timestampKey(a), timestampKey(b)
	if c := bytes.Compare(ta[:], tb[:]); c != 0 {
		return c
	}
	return bytes.Compare(a, b)
}

// timestampKey rearranges the time fields of a version 1 UUID (time_low,
// time_mid, time_hi_and_version without the version) most significant
// first, so that unsigned byte order is time order. u must hold 8 bytes.
func timestampKey(u []byte) [8]byte {
	return [8]byte{u[6] & 0x0F, u[7], u[4], u[5], u[0], u[1], u[2], u[3]}
}

// Validate implements Comparator.
func (TimeUUIDType) Validate(name []byte) error {
	if len(name) == 0 {
		return nil
	}
	if len(name) != uuidSize {
		return MarshalError(fmt.Sprintf("TimeUUID should be 16 or 0 bytes (%d)", len(name)))
	}
	if name[6]&0xF0 != 0x10 {
		return MarshalError("Invalid version for TimeUUID type.")
	}
	return nil
}

// The encoding is 0x00 for the empty name, else 0x01, the timestamp key,
// and the 16 bytes unchanged for the tie-break (which also lets Decode
// alias its input).
const timeUUIDEncSize = 1 + 8 + uuidSize

// Encode implements Comparator. A name of the wrong length is padded with
// zeros or cut to 16 bytes.
func (TimeUUIDType) Encode(dst, name []byte) []byte {
	if len(name) == 0 {
		return append(dst, uuidEmpty)
	}
	var v [uuidSize]byte
	copy(v[:], name)
	ts := timestampKey(v[:])
	dst = append(dst, uuidPresent)
	dst = append(dst, ts[:]...)
	return append(dst, v[:]...)
}

// Decode implements Comparator.
func (TimeUUIDType) Decode(enc []byte) (name, rest []byte, err error) {
	if len(enc) == 0 {
		return nil, nil, fmt.Errorf("%w: missing TimeUUID", ErrMalformed)
	}
	switch enc[0] {
	case uuidEmpty:
		return enc[1:1], enc[1:], nil
	case uuidPresent:
	default:
		return nil, nil, fmt.Errorf("%w: bad TimeUUID tag %#02x", ErrMalformed, enc[0])
	}
	if len(enc) < timeUUIDEncSize {
		return nil, nil, fmt.Errorf("%w: short TimeUUID", ErrMalformed)
	}
	name = enc[9:timeUUIDEncSize:timeUUIDEncSize]
	if ts := timestampKey(name); !bytes.Equal(ts[:], enc[1:9]) {
		return nil, nil, fmt.Errorf("%w: TimeUUID timestamp disagrees with its bytes", ErrMalformed)
	}
	return name, enc[timeUUIDEncSize:], nil
}
