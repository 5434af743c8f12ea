package marshal

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strconv"
)

// The types of Cassandra 1.2 (and TimestampType of 2.0+), as Parse returns
// them. Their orders are those of the 1.2.19 classes, their Validate
// messages 1.2.19's MarshalException texts. They are unexported: callers
// get them from Parse by name.

// byteOrder is the order of BytesType, AsciiType, UTF8Type and
// InetAddressType in 1.2: unsigned bytes, a proper prefix first.
type byteOrder struct{}

func (byteOrder) Compare(a, b []byte) int                          { return bytes.Compare(a, b) }
func (byteOrder) Encode(dst, name []byte) []byte                   { return appendEscaped(dst, name) }
func (byteOrder) Decode(enc []byte) (name, rest []byte, err error) { return decodeEscaped(enc) }

type bytes12 struct{ byteOrder }

func (bytes12) Name() string          { return marshalPackage + "BytesType" }
func (bytes12) Validate([]byte) error { return nil }

type ascii12 struct{ byteOrder }

func (ascii12) Name() string { return marshalPackage + "AsciiType" }

// Validate reports the first byte outside 0..127, as a signed Java byte.
func (ascii12) Validate(name []byte) error {
	for _, c := range name {
		if c > 127 {
			return MarshalError("Invalid byte for ascii: " + strconv.Itoa(int(int8(c))))
		}
	}
	return nil
}

type utf812 struct{ byteOrder }

func (utf812) Name() string { return marshalPackage + "UTF8Type" }

func (utf812) Validate(name []byte) error {
	if !validUTF8(name) {
		return MarshalError("String didn't validate.")
	}
	return nil
}

// validUTF8 is 1.2's UTF8Type.UTF8Validator, state for state. It is not
// Go's utf8.Valid: it lets through encoded surrogates, 0xC0 followed by any
// continuation byte, 0xF5-0xF7 leads, code points above U+10FFFF, and
// after 0xE0 or 0xF0 a second byte outside the continuation range.
func validUTF8(b []byte) bool {
	const (
		start = iota
		two
		threeA0BF
		three80BF1
		three80BF2
		four90BF
		four80BF3
	)
	state := start
	for _, u := range b {
		c := int8(u)
		switch state {
		case start:
			switch {
			case c >= 0:
			case c>>5 == -2:
				if u != 0xC0 && u&0x1E == 0 {
					return false
				}
				state = two
			case c>>4 == -2:
				if u == 0xE0 {
					state = threeA0BF
				} else {
					state = three80BF2
				}
			case c>>3 == -2:
				if u == 0xF0 {
					state = four90BF
				} else {
					state = four80BF3
				}
			default:
				return false
			}
		case two, three80BF1:
			if u&0xC0 != 0x80 {
				return false
			}
			state = start
		case threeA0BF:
			if u&0xE0 == 0x80 {
				return false
			}
			state = three80BF1
		case three80BF2:
			if u&0xC0 != 0x80 {
				return false
			}
			state = three80BF1
		case four90BF:
			if u&0x30 == 0 {
				return false
			}
			state = three80BF2
		case four80BF3:
			if u&0xC0 != 0x80 {
				return false
			}
			state = three80BF2
		}
	}
	return state == start
}

type inet12 struct{ byteOrder }

func (inet12) Name() string { return marshalPackage + "InetAddressType" }

// Validate accepts what InetAddress.getByAddress accepts: 4 or 16 bytes.
// Unlike every other type it rejects the empty name, as 1.2 did.
func (inet12) Validate(name []byte) error {
	if len(name) != 4 && len(name) != 16 {
		return MarshalError("Expected 4 or 16 byte inetaddress; got " + hex.EncodeToString(name))
	}
	return nil
}

// fixedSigned is the order of LongType, Int32Type and TimestampType: the
// first byte signed, then all bytes unsigned, which is numeric order for
// names of the type's width.
type fixedSigned struct {
	width int
}

func (fixedSigned) Compare(a, b []byte) int {
	if c, done := compareEmpty(a, b); done {
		return c
	}
	if a[0] != b[0] {
		return sign(int(int8(a[0])) - int(int8(b[0])))
	}
	return bytes.Compare(a, b)
}

// Encode is a tag (empty, negative, non-negative) and the name's bytes
// unchanged; a name of another width is padded with zeros or cut.
func (f fixedSigned) Encode(dst, name []byte) []byte {
	if len(name) == 0 {
		return append(dst, longEmpty)
	}
	tag := byte(longPositive)
	if name[0]&0x80 != 0 {
		tag = longNegative
	}
	return appendFixed(append(dst, tag), name, f.width)
}

func (f fixedSigned) Decode(enc []byte) (name, rest []byte, err error) {
	if len(enc) == 0 {
		return nil, nil, fmt.Errorf("%w: missing number", ErrMalformed)
	}
	switch enc[0] {
	case longEmpty:
		return enc[1:1], enc[1:], nil
	case longNegative, longPositive:
	default:
		return nil, nil, fmt.Errorf("%w: bad number tag %#02x", ErrMalformed, enc[0])
	}
	if len(enc) < 1+f.width {
		return nil, nil, fmt.Errorf("%w: short number", ErrMalformed)
	}
	name = enc[1 : 1+f.width : 1+f.width]
	if (name[0]&0x80 != 0) != (enc[0] == longNegative) {
		return nil, nil, fmt.Errorf("%w: number tag disagrees with its sign", ErrMalformed)
	}
	return name, enc[1+f.width:], nil
}

// appendFixed appends name padded with zeros or cut to width bytes.
func appendFixed(dst, name []byte, width int) []byte {
	if len(name) >= width {
		return append(dst, name[:width]...)
	}
	dst = append(dst, name...)
	return append(dst, make([]byte, width-len(name))...)
}

// widthError is the "Expected N or 0 byte ..." check most fixed-width
// types share.
func widthError(name []byte, width int, format string) error {
	if len(name) != 0 && len(name) != width {
		return MarshalError(fmt.Sprintf(format, len(name)))
	}
	return nil
}

type long12 struct{ fixedSigned }

func (long12) Name() string { return marshalPackage + "LongType" }
func (long12) Validate(name []byte) error {
	return widthError(name, 8, "Expected 8 or 0 byte long (%d)")
}

type int3212 struct{ fixedSigned }

func (int3212) Name() string { return marshalPackage + "Int32Type" }
func (int3212) Validate(name []byte) error {
	return widthError(name, 4, "Expected 4 or 0 byte int (%d)")
}

// timestamp21 is 2.0's TimestampType: DateType's values in LongType's
// (signed) order.
type timestamp21 struct{ fixedSigned }

func (timestamp21) Name() string { return marshalPackage + "TimestampType" }
func (timestamp21) Validate(name []byte) error {
	return widthError(name, 8, "Expected 8 or 0 byte long for date (%d)")
}

// fixedUnsigned is the order of DateType and CounterColumnType: unsigned
// bytes. For DateType that puts every date before 1970 (a negative long)
// after every later one, as 1.2 did.
type fixedUnsigned struct {
	width int
}

func (fixedUnsigned) Compare(a, b []byte) int { return bytes.Compare(a, b) }

func (f fixedUnsigned) Encode(dst, name []byte) []byte {
	if len(name) == 0 {
		return append(dst, uuidEmpty)
	}
	return appendFixed(append(dst, uuidPresent), name, f.width)
}

func (f fixedUnsigned) Decode(enc []byte) (name, rest []byte, err error) {
	if len(enc) == 0 {
		return nil, nil, fmt.Errorf("%w: missing value", ErrMalformed)
	}
	switch enc[0] {
	case uuidEmpty:
		return enc[1:1], enc[1:], nil
	case uuidPresent:
	default:
		return nil, nil, fmt.Errorf("%w: bad tag %#02x", ErrMalformed, enc[0])
	}
	if len(enc) < 1+f.width {
		return nil, nil, fmt.Errorf("%w: short value", ErrMalformed)
	}
	return enc[1 : 1+f.width : 1+f.width], enc[1+f.width:], nil
}

type date12 struct{ fixedUnsigned }

func (date12) Name() string { return marshalPackage + "DateType" }
func (date12) Validate(name []byte) error {
	return widthError(name, 8, "Expected 8 or 0 byte long for date (%d)")
}

type counter12 struct{ fixedUnsigned }

func (counter12) Name() string { return marshalPackage + "CounterColumnType" }
func (counter12) Validate(name []byte) error {
	return widthError(name, 8, "Expected 8 or 0 byte long (%d)")
}

// lexicalUUID12 keeps 0.6's order (java.util.UUID.compareTo: two signed
// longs) with 1.2's message.
type lexicalUUID12 struct{ LexicalUUIDType }

func (lexicalUUID12) Validate(name []byte) error {
	return widthError(name, uuidSize, "LexicalUUID should be 16 or 0 bytes (%d)")
}

// timeUUID12 orders by timestamp, then, unlike 0.6, by the 16 bytes
// compared signed (ByteBuffer.compareTo).
type timeUUID12 struct{}

func (timeUUID12) Name() string { return marshalPackage + "TimeUUIDType" }

func (timeUUID12) Validate(name []byte) error { return (TimeUUIDType{}).Validate(name) }

func (t timeUUID12) Compare(a, b []byte) int {
	if c, done := compareEmpty(a, b); done {
		return c
	}
	if len(a) != uuidSize || len(b) != uuidSize {
		return bytes.Compare(t.Encode(nil, a), t.Encode(nil, b))
	}
	ta, tb := timestampKey(a), timestampKey(b)
	if c := bytes.Compare(ta[:], tb[:]); c != 0 {
		return c
	}
	for i := range uuidSize {
		if a[i] != b[i] {
			return sign(int(int8(a[i])) - int(int8(b[i])))
		}
	}
	return 0
}

// Encode is 0x00 for the empty name, else 0x01, the timestamp key and the
// 16 bytes with their sign bits flipped (the signed tie-break).
func (timeUUID12) Encode(dst, name []byte) []byte {
	if len(name) == 0 {
		return append(dst, uuidEmpty)
	}
	var v [uuidSize]byte
	copy(v[:], name)
	ts := timestampKey(v[:])
	dst = append(append(dst, uuidPresent), ts[:]...)
	for _, c := range v {
		dst = append(dst, c^0x80)
	}
	return dst
}

func (t timeUUID12) Decode(enc []byte) (name, rest []byte, err error) {
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
	name = make([]byte, uuidSize)
	for i := range name {
		name[i] = enc[9+i] ^ 0x80
	}
	if ts := timestampKey(name); !bytes.Equal(ts[:], enc[1:9]) {
		return nil, nil, fmt.Errorf("%w: TimeUUID timestamp disagrees with its bytes", ErrMalformed)
	}
	return name, enc[timeUUIDEncSize:], nil
}

// uuid12 is UUIDType: by version first; version 1 UUIDs by timestamp;
// then the 16 bytes unsigned. Names shorter than 16 bytes (the empty one,
// and invalid ones) all compare equal, first.
type uuid12 struct{}

func (uuid12) Name() string { return marshalPackage + "UUIDType" }

func (uuid12) Validate(name []byte) error {
	if len(name) != 0 && len(name) != uuidSize {
		return MarshalError("UUIDs must be exactly 16 bytes")
	}
	return nil
}

func (uuid12) Compare(a, b []byte) int {
	switch {
	case len(a) < uuidSize && len(b) < uuidSize:
		return 0
	case len(a) < uuidSize:
		return -1
	case len(b) < uuidSize:
		return 1
	}
	va, vb := a[6]>>4, b[6]>>4
	if va != vb {
		return sign(int(va) - int(vb))
	}
	if va == 1 {
		ta, tb := timestampKey(a), timestampKey(b)
		if c := bytes.Compare(ta[:], tb[:]); c != 0 {
			return c
		}
	}
	return bytes.Compare(a[:uuidSize], b[:uuidSize])
}

// Encode is 0x00 for a name shorter than 16 bytes, else 0x01, the version
// nibble, for version 1 the timestamp key, and the 16 bytes.
func (uuid12) Encode(dst, name []byte) []byte {
	if len(name) < uuidSize {
		return append(dst, uuidEmpty)
	}
	v := name[6] >> 4
	dst = append(dst, uuidPresent, v)
	if v == 1 {
		ts := timestampKey(name)
		dst = append(dst, ts[:]...)
	}
	return append(dst, name[:uuidSize]...)
}

func (uuid12) Decode(enc []byte) (name, rest []byte, err error) {
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
	if len(enc) < 2 {
		return nil, nil, fmt.Errorf("%w: short UUID", ErrMalformed)
	}
	v, n := enc[1], 2
	if v == 1 {
		n += 8
	}
	if len(enc) < n+uuidSize {
		return nil, nil, fmt.Errorf("%w: short UUID", ErrMalformed)
	}
	name = enc[n : n+uuidSize : n+uuidSize]
	if name[6]>>4 != v {
		return nil, nil, fmt.Errorf("%w: UUID version disagrees with its bytes", ErrMalformed)
	}
	if v == 1 {
		if ts := timestampKey(name); !bytes.Equal(ts[:], enc[2:10]) {
			return nil, nil, fmt.Errorf("%w: UUID timestamp disagrees with its bytes", ErrMalformed)
		}
	}
	return name, enc[n+uuidSize:], nil
}
