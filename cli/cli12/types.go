package cli12

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/thriftd/thriftd/marshal"
)

const marshalPrefix = "org.apache.cassandra.db.marshal."

// functions are the typed functions of set, get and the key and name
// positions, in the order 1.2 lists them, with the type each stands for.
var functions = []struct{ name, class string }{
	{"bytes", "BytesType"}, {"integer", "IntegerType"}, {"long", "LongType"},
	{"int", "Int32Type"}, {"lexicaluuid", "LexicalUUIDType"}, {"timeuuid", "TimeUUIDType"},
	{"utf8", "UTF8Type"}, {"ascii", "AsciiType"}, {"double", "DoubleType"},
	{"countercolumn", "CounterColumnType"},
}

// functionNames is Function.getFunctionNames: "bytes, integer, ..., countercolumn."
func functionNames() string {
	var names []string
	for _, f := range functions {
		names = append(names, f.name)
	}
	return strings.Join(names, ", ") + "."
}

// functionType is getTypeByFunction: the class of a typed function.
func functionType(name string) (string, error) {
	for _, f := range functions {
		if strings.EqualFold(f.name, name) {
			return marshalPrefix + f.class, nil
		}
	}
	return "", fmt.Errorf("Function '%s' not found. Available functions: %s", name, functionNames())
}

// formatType is getFormatType: a function name, else a class name as the
// type parser reads it. It returns the fully qualified class.
func formatType(name string) (string, error) {
	for _, f := range functions {
		if strings.EqualFold(f.name, name) {
			return marshalPrefix + f.class, nil
		}
	}
	c, err := marshal.Parse(name)
	if err != nil {
		return "", fmt.Errorf("Unknown comparator '%s'. Available functions: %s", name, functionNames())
	}
	return c.Name(), nil
}

// short is a class name without the marshal package.
func short(class string) string { return strings.TrimPrefix(class, marshalPrefix) }

// marshalError is a MarshalException as a RuntimeException wrapping it
// prints it.
func marshalError(format string, args ...any) error {
	return fmt.Errorf("org.apache.cassandra.db.marshal.MarshalException: "+format, args...)
}

// fromString is AbstractType.fromString of the type named by class.
func fromString(class, s string) ([]byte, error) {
	if class == "" {
		class = marshalPrefix + "BytesType"
	}
	switch short(class) {
	case "BytesType":
		b, err := hex.DecodeString(s)
		if err != nil || len(s)%2 != 0 {
			return nil, marshalError("cannot parse '%s' as hex bytes", s)
		}
		return b, nil
	case "AsciiType":
		for _, c := range []byte(s) {
			if c > 127 {
				return nil, marshalError("Invalid ASCII character in string literal")
			}
		}
		return []byte(s), nil
	case "UTF8Type":
		return []byte(s), nil
	case "LongType", "CounterColumnType":
		if s == "" {
			return []byte{}, nil
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, marshalError("unable to make long from '%s'", s)
		}
		return binary.BigEndian.AppendUint64(nil, uint64(v)), nil
	case "Int32Type":
		if s == "" {
			return []byte{}, nil
		}
		v, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, marshalError("unable to make int from '%s'", s)
		}
		return binary.BigEndian.AppendUint32(nil, uint32(int32(v))), nil
	case "IntegerType":
		if s == "" {
			return []byte{}, nil
		}
		v, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return nil, marshalError("unable to make int from '%s'", s)
		}
		return twosComplement(v), nil
	case "DoubleType":
		if s == "" {
			return []byte{}, nil
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil, marshalError("unable to make double from '%s'", s)
		}
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(v)), nil
	case "FloatType":
		if s == "" {
			return []byte{}, nil
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 32)
		if err != nil {
			return nil, marshalError("unable to make float from '%s'", s)
		}
		return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(v))), nil
	case "BooleanType":
		switch strings.ToLower(s) {
		case "", "false":
			if s == "" {
				return []byte{}, nil
			}
			return []byte{0}, nil
		case "true":
			return []byte{1}, nil
		}
		return nil, marshalError("unable to make boolean from '%s'", s)
	case "UUIDType", "LexicalUUIDType", "TimeUUIDType":
		if s == "" {
			return []byte{}, nil
		}
		u, err := uuid.Parse(s)
		if err != nil || len(s) != 36 {
			if short(class) == "LexicalUUIDType" {
				return nil, marshalError("unable to make UUID from '%s'", s)
			}
			return nil, marshalError("unable to coerce '%s' to a  formatted date (long)", s)
		}
		if short(class) == "TimeUUIDType" && u.Version() != 1 {
			return nil, marshalError("Unsupported UUID version: %d", u.Version())
		}
		return u[:], nil
	}
	return nil, fmt.Errorf("thriftd-cli cannot read a value of %s from text", class)
}

// twosComplement is BigInteger.toByteArray: the shortest big-endian
// two's complement.
func twosComplement(v *big.Int) []byte {
	if v.Sign() >= 0 {
		b := v.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	n := len(v.Bytes()) + 1
	m := new(big.Int).Lsh(big.NewInt(1), uint(8*n))
	b := new(big.Int).Add(m, v).Bytes()
	for len(b) > 1 && b[0] == 0xff && b[1]&0x80 != 0 {
		b = b[1:]
	}
	return b
}

// getString is AbstractType.getString of the type named by class (hex for
// a type without one).
func getString(class string, b []byte) string {
	if short(class) == "CounterColumnType" && len(b) == 8 {
		return strconv.FormatInt(int64(binary.BigEndian.Uint64(b)), 10)
	}
	c, err := marshal.Parse(class)
	if err != nil {
		return hex.EncodeToString(b)
	}
	if s, ok := c.(interface{ String([]byte) string }); ok {
		return s.String(b)
	}
	return hex.EncodeToString(b)
}

// newTimeUUID is UUIDGen.getTimeUUIDBytes: a version 1 UUID of now.
func newTimeUUID() []byte {
	u, err := uuid.NewUUID()
	if err != nil {
		var b [16]byte
		_, _ = rand.Read(b[:])
		ts := uint64(time.Now().UnixNano()/100) + 0x01B21DD213814000
		binary.BigEndian.PutUint32(b[0:], uint32(ts))
		binary.BigEndian.PutUint16(b[4:], uint16(ts>>32))
		binary.BigEndian.PutUint16(b[6:], uint16(ts>>48)&0x0fff|0x1000)
		b[8] = b[8]&0x3f | 0x80
		return b[:]
	}
	return u[:]
}

// javaDouble is Double.toString of v.
func javaDouble(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	case v == 0:
		if math.Signbit(v) {
			return "-0.0"
		}
		return "0.0"
	}
	a := math.Abs(v)
	if a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(v, 'E', -1, 64)
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}
