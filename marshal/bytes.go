package marshal

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// BytesType orders names as unsigned bytes, a proper prefix first, and
// accepts every name.
type BytesType struct{}

// Name implements Comparator.
func (BytesType) Name() string { return marshalPackage + "BytesType" }

// Compare implements Comparator.
func (BytesType) Compare(a, b []byte) int { return bytes.Compare(a, b) }

// Validate implements Comparator.
func (BytesType) Validate([]byte) error { return nil }

// Encode implements Comparator.
func (BytesType) Encode(dst, name []byte) []byte { return appendEscaped(dst, name) }

// Decode implements Comparator.
func (BytesType) Decode(enc []byte) (name, rest []byte, err error) { return decodeEscaped(enc) }

// AsciiType orders as BytesType does. It accepts every name: 0.6 decoded
// with Java's US-ASCII charset, which replaces bad bytes instead of failing.
type AsciiType struct{}

// Name implements Comparator.
func (AsciiType) Name() string { return marshalPackage + "AsciiType" }

// Compare implements Comparator.
func (AsciiType) Compare(a, b []byte) int { return bytes.Compare(a, b) }

// Validate implements Comparator.
func (AsciiType) Validate([]byte) error { return nil }

// Encode implements Comparator.
func (AsciiType) Encode(dst, name []byte) []byte { return appendEscaped(dst, name) }

// Decode implements Comparator.
func (AsciiType) Decode(enc []byte) (name, rest []byte, err error) { return decodeEscaped(enc) }

// UTF8Type orders as BytesType does, which for UTF-8 is code point order,
// and accepts only well-formed UTF-8. 0.6's UTF8Type compared the bytes
// too, not Java strings, so a supplementary character sorts after U+E000
// to U+FFFF here, unlike in OrderPreservingPartitioner's key order.
type UTF8Type struct{}

// Name implements Comparator.
func (UTF8Type) Name() string { return marshalPackage + "UTF8Type" }

// Compare implements Comparator.
func (UTF8Type) Compare(a, b []byte) int { return bytes.Compare(a, b) }

// Validate implements Comparator. The message lists the bytes as Java's
// Arrays.toString(byte[]) does: signed decimals, e.g.
// "invalid UTF8 bytes [-61, 40]".
func (UTF8Type) Validate(name []byte) error {
	if utf8.Valid(name) {
		return nil
	}
	return MarshalError("invalid UTF8 bytes " + javaByteArray(name))
}

// Encode implements Comparator.
func (UTF8Type) Encode(dst, name []byte) []byte { return appendEscaped(dst, name) }

// Decode implements Comparator.
func (UTF8Type) Decode(enc []byte) (name, rest []byte, err error) { return decodeEscaped(enc) }

// javaByteArray formats b as java.util.Arrays.toString(byte[]) does.
func javaByteArray(b []byte) string {
	s := make([]byte, 0, 2+5*len(b))
	s = append(s, '[')
	for i, c := range b {
		if i > 0 {
			s = append(s, ", "...)
		}
		s = strconv.AppendInt(s, int64(int8(c)), 10)
	}
	return string(append(s, ']'))
}

// The escaped encoding, shared by the three byte-ordered types: every 0x00
// becomes 0x00 0xFF and the name ends with 0x00 0x01. Both pairs sort below
// any non-zero byte, and the terminator below an escaped zero, so a proper
// prefix still sorts first and no encoding is a prefix of another.
const (
	escByte  = 0x00
	escZero  = 0xFF
	escEnd   = 0x01
	escBytes = 2
)

func appendEscaped(dst, name []byte) []byte {
	for {
		i := bytes.IndexByte(name, escByte)
		if i < 0 {
			break
		}
		dst = append(dst, name[:i+1]...)
		dst = append(dst, escZero)
		name = name[i+1:]
	}
	dst = append(dst, name...)
	return append(dst, escByte, escEnd)
}

// decodeEscaped aliases enc when the name holds no zero byte, and copies it
// otherwise.
func decodeEscaped(enc []byte) (name, rest []byte, err error) {
	i := bytes.IndexByte(enc, escByte)
	if i < 0 || i+1 >= len(enc) {
		return nil, nil, fmt.Errorf("%w: unterminated name", ErrMalformed)
	}
	if enc[i+1] == escEnd {
		return enc[:i:i], enc[i+escBytes:], nil
	}
	// One allocation: the escaped form is at most twice as long as the name.
	var out []byte
	if after, err := skipEscaped(enc); err == nil {
		out = make([]byte, 0, len(enc)-len(after))
	}
	for {
		if i < 0 || i+1 >= len(enc) {
			return nil, nil, fmt.Errorf("%w: unterminated name", ErrMalformed)
		}
		switch enc[i+1] {
		case escEnd:
			return append(out, enc[:i]...), enc[i+escBytes:], nil
		case escZero:
			out = append(out, enc[:i+1]...)
			enc = enc[i+escBytes:]
			i = bytes.IndexByte(enc, escByte)
		default:
			return nil, nil, fmt.Errorf("%w: byte %#02x after 0x00", ErrMalformed, enc[i+1])
		}
	}
}
