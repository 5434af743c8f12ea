package marshal

import (
	"bytes"
	"fmt"
)

// LongType orders 8-byte big-endian two's complement integers numerically,
// the empty name first.
type LongType struct{}

// Name implements Comparator.
func (LongType) Name() string { return marshalPackage + "LongType" }

// Compare implements Comparator. Like 0.6.13 it compares the first byte
// signed and the rest unsigned, which is numeric order for 8-byte values
// and still a total order for names of other lengths.
func (LongType) Compare(a, b []byte) int {
	if c, done := compareEmpty(a, b); done {
		return c
	}
	if a[0] != b[0] {
		return sign(int(int8(a[0])) - int(int8(b[0])))
	}
	return bytes.Compare(a[1:], b[1:])
}

// Validate implements Comparator.
func (LongType) Validate(name []byte) error {
	if len(name) != 0 && len(name) != 8 {
		return MarshalError("A long is exactly 8 bytes")
	}
	return nil
}

// The encoding is one tag byte and, unless the name is empty, its 8 bytes
// unchanged: the tag puts negatives before non-negatives, and within one
// sign two's complement bytes already sort numerically. Keeping the bytes
// as they are lets Decode alias its input.
const (
	longEmpty    = 0x00
	longNegative = 0x01
	longPositive = 0x02
	longSize     = 8
)

// Encode implements Comparator. A name of the wrong length is padded with
// zeros or cut to 8 bytes.
func (LongType) Encode(dst, name []byte) []byte {
	if len(name) == 0 {
		return append(dst, longEmpty)
	}
	var v [longSize]byte
	copy(v[:], name)
	tag := byte(longPositive)
	if v[0]&0x80 != 0 {
		tag = longNegative
	}
	dst = append(dst, tag)
	return append(dst, v[:]...)
}

// Decode implements Comparator.
func (LongType) Decode(enc []byte) (name, rest []byte, err error) {
	if len(enc) == 0 {
		return nil, nil, fmt.Errorf("%w: missing long", ErrMalformed)
	}
	switch enc[0] {
	case longEmpty:
		return enc[1:1], enc[1:], nil
	case longNegative, longPositive:
	default:
		return nil, nil, fmt.Errorf("%w: bad long tag %#02x", ErrMalformed, enc[0])
	}
	if len(enc) < 1+longSize {
		return nil, nil, fmt.Errorf("%w: short long", ErrMalformed)
	}
	name = enc[1 : 1+longSize : 1+longSize]
	if (name[0]&0x80 != 0) != (enc[0] == longNegative) {
		return nil, nil, fmt.Errorf("%w: long tag disagrees with its sign", ErrMalformed)
	}
	return name, enc[1+longSize:], nil
}

// compareEmpty orders the empty name before all others; done reports
// whether either name was empty.
func compareEmpty(a, b []byte) (c int, done bool) {
	switch {
	case len(a) == 0 && len(b) == 0:
		return 0, true
	case len(a) == 0:
		return -1, true
	case len(b) == 0:
		return 1, true
	}
	return 0, false
}
