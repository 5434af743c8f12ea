package marshal

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
)

// The 1.2 types encoded behind a key that sorts as the type compares
// (keyed, key.go): BooleanType, FloatType and DoubleType, IntegerType,
// DecimalType and EmptyType.

// boolean12 is BooleanType: one-byte names compared as signed bytes, and
// every name of another length (the empty one included) equal to every
// other, first.
type boolean12 struct{}

func (boolean12) Name() string { return marshalPackage + "BooleanType" }
func (boolean12) Validate(name []byte) error {
	return widthError(name, 1, "Expected 1 or 0 byte value (%d)")
}

func (boolean12) Compare(a, b []byte) int {
	switch {
	case len(a) != 1 && len(b) != 1:
		return 0
	case len(a) != 1:
		return -1
	case len(b) != 1:
		return 1
	}
	return sign(int(int8(a[0])) - int(int8(b[0])))
}

func (boolean12) appendKey(dst, name []byte) []byte {
	if len(name) != 1 {
		return append(dst, 0x00)
	}
	return append(dst, 0x01, name[0]^0x80)
}

func (boolean12) skipKey(enc []byte) ([]byte, error) {
	if len(enc) == 0 {
		return nil, fmt.Errorf("%w: missing boolean", ErrMalformed)
	}
	switch enc[0] {
	case 0x00:
		return enc[1:], nil
	case 0x01:
		return skipN(enc, 2, "boolean")
	}
	return nil, fmt.Errorf("%w: bad boolean tag %#02x", ErrMalformed, enc[0])
}

func (b boolean12) Encode(dst, name []byte) []byte { return encodeKeyed(b, dst, name) }
func (b boolean12) Decode(enc []byte) ([]byte, []byte, error) {
	return decodeKeyed(b, enc)
}

// float12 is DoubleType (width 8) and FloatType (width 4): Java's
// Double.compareTo and Float.compareTo, so -0.0 sorts before 0.0 and every
// NaN, equal to every other, after +Inf.
type float12 struct {
	width int
}

func (f float12) Name() string {
	if f.width == 4 {
		return marshalPackage + "FloatType"
	}
	return marshalPackage + "DoubleType"
}

func (f float12) Validate(name []byte) error {
	if f.width == 4 {
		return widthError(name, 4, "Expected 4 or 0 byte value for a float (%d)")
	}
	return widthError(name, 8, "Expected 8 or 0 byte value for a double (%d)")
}

// bits returns the name's value as an integer whose signed order is the
// Java order: the IEEE bits with NaN made canonical, negatives flipped.
func (f float12) bits(name []byte) uint64 {
	v := appendFixed(make([]byte, 0, 8), name, f.width)
	var b uint64
	if f.width == 4 {
		x := binary.BigEndian.Uint32(v)
		if math.IsNaN(float64(math.Float32frombits(x))) {
			x = 0x7FC00000
		}
		b = uint64(x) << 32
	} else {
		b = binary.BigEndian.Uint64(v)
		if math.IsNaN(math.Float64frombits(b)) {
			b = 0x7FF8000000000000
		}
	}
	if b&(1<<63) != 0 {
		return ^b
	}
	return b | 1<<63
}

func (f float12) Compare(a, b []byte) int {
	if c, done := compareEmpty(a, b); done {
		return c
	}
	x, y := f.bits(a), f.bits(b)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func (f float12) appendKey(dst, name []byte) []byte {
	if len(name) == 0 {
		return append(dst, 0x00)
	}
	k := binary.BigEndian.AppendUint64(append(dst, 0x01), f.bits(name))
	return k[:len(k)-8+f.width]
}

func (f float12) skipKey(enc []byte) ([]byte, error) {
	if len(enc) == 0 {
		return nil, fmt.Errorf("%w: missing number", ErrMalformed)
	}
	switch enc[0] {
	case 0x00:
		return enc[1:], nil
	case 0x01:
		return skipN(enc, 1+f.width, "number")
	}
	return nil, fmt.Errorf("%w: bad number tag %#02x", ErrMalformed, enc[0])
}

func (f float12) Encode(dst, name []byte) []byte { return encodeKeyed(f, dst, name) }
func (f float12) Decode(enc []byte) ([]byte, []byte, error) {
	return decodeKeyed(f, enc)
}

// integer12 is IntegerType (varint): any bytes, read as a big-endian
// two's complement integer of any length, compared numerically; a
// redundant sign byte does not change the value.
type integer12 struct{}

func (integer12) Name() string          { return marshalPackage + "IntegerType" }
func (integer12) Validate([]byte) error { return nil }

// significant strips the redundant leading sign bytes of a two's
// complement integer.
func significant(b []byte) []byte {
	for len(b) > 1 && (b[0] == 0x00 && b[1]&0x80 == 0 || b[0] == 0xFF && b[1]&0x80 != 0) {
		b = b[1:]
	}
	return b
}

func (integer12) Compare(a, b []byte) int {
	if c, done := compareEmpty(a, b); done {
		return c
	}
	a, b = significant(a), significant(b)
	na, nb := a[0]&0x80 != 0, b[0]&0x80 != 0
	switch {
	case na != nb && na:
		return -1
	case na != nb:
		return 1
	case len(a) != len(b):
		if (len(a) < len(b)) != na {
			return -1
		}
		return 1
	}
	return bytes.Compare(a, b)
}

// appendKey: 0x00 empty; 0x01, the length complemented and the bytes for
// a negative; 0x02, the length and the bytes otherwise.
func (integer12) appendKey(dst, name []byte) []byte {
	if len(name) == 0 {
		return append(dst, 0x00)
	}
	s := significant(name)
	if s[0]&0x80 != 0 {
		dst = binary.BigEndian.AppendUint32(append(dst, 0x01), ^uint32(len(s)))
	} else {
		dst = binary.BigEndian.AppendUint32(append(dst, 0x02), uint32(len(s)))
	}
	return append(dst, s...)
}

func (integer12) skipKey(enc []byte) ([]byte, error) {
	if len(enc) == 0 {
		return nil, fmt.Errorf("%w: missing varint", ErrMalformed)
	}
	if enc[0] == 0x00 {
		return enc[1:], nil
	}
	if enc[0] != 0x01 && enc[0] != 0x02 || len(enc) < 5 {
		return nil, fmt.Errorf("%w: bad varint", ErrMalformed)
	}
	n := binary.BigEndian.Uint32(enc[1:])
	if enc[0] == 0x01 {
		n = ^n
	}
	if uint64(n) > uint64(len(enc)-5) {
		return nil, fmt.Errorf("%w: short varint", ErrMalformed)
	}
	return enc[5+int(n):], nil
}

func (i integer12) Encode(dst, name []byte) []byte { return encodeKeyed(i, dst, name) }
func (i integer12) Decode(enc []byte) ([]byte, []byte, error) {
	return decodeKeyed(i, enc)
}

// decimal12 is DecimalType: a 4-byte scale and a varint unscaled value,
// compared as BigDecimal.compareTo does, numerically (1.0 equals 1.00).
// Every name is valid, as in 1.2; names of 1 to 4 bytes, which the real
// comparison cannot read (it throws), sort after the empty name and
// before every number, by their bytes.
type decimal12 struct{}

func (decimal12) Name() string          { return marshalPackage + "DecimalType" }
func (decimal12) Validate([]byte) error { return nil }

func (d decimal12) Compare(a, b []byte) int {
	return bytes.Compare(d.appendKey(nil, a), d.appendKey(nil, b))
}

const (
	decEmpty    = 0x00
	decInvalid  = 0x01
	decNegative = 0x02
	decZero     = 0x03
	decPositive = 0x04
)

// appendKey: a class byte; for a non-zero number its adjusted exponent
// (the power of ten of its leading digit) and its digits without trailing
// zeros, ended by 0x00, all complemented for a negative number so that
// larger magnitudes sort first.
func (decimal12) appendKey(dst, name []byte) []byte {
	switch {
	case len(name) == 0:
		return append(dst, decEmpty)
	case len(name) < 5:
		return appendEscaped(append(dst, decInvalid), name)
	}
	scale := int64(int32(binary.BigEndian.Uint32(name)))
	unscaled := twosComplement(name[4:])
	if unscaled.Sign() == 0 {
		return append(dst, decZero)
	}
	neg := unscaled.Sign() < 0
	digits := []byte(new(big.Int).Abs(unscaled).String())
	for len(digits) > 1 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		scale--
	}
	// The adjusted exponent of digits × 10^-scale: at most about 2^31 +
	// 2^20 in magnitude, so int64 holds it.
	exp := uint64(int64(len(digits))-1-scale) ^ 1<<63
	var flip byte
	tag := byte(decPositive)
	if neg {
		exp, flip, tag = ^exp, 0xFF, decNegative
	}
	dst = binary.BigEndian.AppendUint64(append(dst, tag), exp)
	for _, c := range digits {
		dst = append(dst, c^flip)
	}
	return append(dst, flip)
}

func (decimal12) skipKey(enc []byte) ([]byte, error) {
	if len(enc) == 0 {
		return nil, fmt.Errorf("%w: missing decimal", ErrMalformed)
	}
	switch enc[0] {
	case decEmpty, decZero:
		return enc[1:], nil
	case decInvalid:
		return skipEscaped(enc[1:])
	case decNegative, decPositive:
	default:
		return nil, fmt.Errorf("%w: bad decimal tag %#02x", ErrMalformed, enc[0])
	}
	end := byte(0x00)
	if enc[0] == decNegative {
		end = 0xFF
	}
	if len(enc) < 9 {
		return nil, fmt.Errorf("%w: short decimal", ErrMalformed)
	}
	i := bytes.IndexByte(enc[9:], end)
	if i < 0 {
		return nil, fmt.Errorf("%w: unterminated decimal", ErrMalformed)
	}
	return enc[9+i+1:], nil
}

func (d decimal12) Encode(dst, name []byte) []byte { return encodeKeyed(d, dst, name) }
func (d decimal12) Decode(enc []byte) ([]byte, []byte, error) {
	return decodeKeyed(d, enc)
}

// twosComplement reads b as a big-endian two's complement integer.
func twosComplement(b []byte) *big.Int {
	v := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return v
}

// empty12 is EmptyType: every name compares equal, and only the empty
// name is valid.
type empty12 struct{}

func (empty12) Name() string { return marshalPackage + "EmptyType" }
func (empty12) Validate(name []byte) error {
	if len(name) > 0 {
		return MarshalError("EmptyType only accept empty values")
	}
	return nil
}
func (empty12) Compare(a, b []byte) int            { return 0 }
func (empty12) appendKey(dst, _ []byte) []byte     { return dst }
func (empty12) skipKey(enc []byte) ([]byte, error) { return enc, nil }
func (e empty12) Encode(dst, name []byte) []byte   { return encodeKeyed(e, dst, name) }
func (e empty12) Decode(enc []byte) ([]byte, []byte, error) {
	return decodeKeyed(e, enc)
}
