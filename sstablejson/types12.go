package sstablejson

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/thriftd/thriftd/marshal"
)

// The JSON of Cassandra 1.x's sstable2json (SSTableExport) writes each
// column name with its comparator's getString and each value with its
// validator's, and json2sstable (SSTableImport) reads them back with
// fromString. TypeString and TypeFromString are those two for 1.2's
// types, by class name as describe_keyspace gives it.

// TypeString is 1.2's getString of b under the type named class, but
// for DateType and TimestampType, whose getString drops the milliseconds:
// their values are written as milliseconds since the epoch, which 1.2's
// fromString reads as well.
func TypeString(class string, b []byte) (string, error) {
	t, err := marshal.Parse(class)
	if err != nil {
		return "", err
	}
	switch strings.TrimPrefix(t.Name(), marshalPrefix) {
	case "DateType", "TimestampType":
		if len(b) == 8 {
			return strconv.FormatInt(int64(binary.BigEndian.Uint64(b)), 10), nil
		}
	}
	if s, ok := t.(interface{ String([]byte) string }); ok {
		return s.String(b), nil
	}
	return hex.EncodeToString(b), nil
}

const marshalPrefix = "org.apache.cassandra.db.marshal."

// TypeFromString is 1.2's fromString: the bytes that s stands for under
// the type named class. The result is checked with the type's Validate.
func TypeFromString(class, s string) ([]byte, error) {
	t, err := marshal.Parse(class)
	if err != nil {
		return nil, err
	}
	b, err := fromString(strings.TrimPrefix(t.Name(), marshalPrefix), s)
	if err != nil {
		return nil, err
	}
	if err := t.Validate(b); err != nil {
		return nil, err
	}
	return b, nil
}

func fromString(name, s string) ([]byte, error) {
	if inner, ok := strings.CutPrefix(name, "ReversedType("); ok {
		return fromString(strings.TrimPrefix(strings.TrimSuffix(inner, ")"), marshalPrefix), s)
	}
	if args, ok := strings.CutPrefix(name, "CompositeType("); ok {
		return compositeFromString(strings.TrimSuffix(args, ")"), s)
	}
	if s == "" {
		switch name {
		case "BytesType", "AsciiType", "UTF8Type", "LongType", "Int32Type", "IntegerType", "DecimalType",
			"DoubleType", "FloatType", "BooleanType", "DateType", "TimestampType", "UUIDType",
			"LexicalUUIDType", "TimeUUIDType", "EmptyType", "CounterColumnType":
			return []byte{}, nil
		}
	}
	switch name {
	case "BytesType", "CounterColumnType":
		return hex.DecodeString(s)
	case "AsciiType", "UTF8Type":
		return []byte(s), nil
	case "EmptyType":
		return nil, fmt.Errorf("EmptyType only holds the empty value, not %q", s)
	case "LongType":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("unable to make long from '%s'", s)
		}
		return binary.BigEndian.AppendUint64(nil, uint64(n)), nil
	case "Int32Type":
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("unable to make int from '%s'", s)
		}
		return binary.BigEndian.AppendUint32(nil, uint32(n)), nil
	case "IntegerType":
		n, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return nil, fmt.Errorf("unable to make java.math.BigInteger from '%s'", s)
		}
		return twosComplement(n), nil
	case "DecimalType":
		return decimalFromString(s)
	case "DoubleType":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("unable to make double from '%s'", s)
		}
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(f)), nil
	case "FloatType":
		f, err := strconv.ParseFloat(s, 32)
		if err != nil {
			return nil, fmt.Errorf("unable to make float from '%s'", s)
		}
		return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(f))), nil
	case "BooleanType":
		switch strings.ToLower(s) {
		case "true":
			return []byte{1}, nil
		case "false":
			return []byte{0}, nil
		}
		return nil, fmt.Errorf("unable to make boolean from '%s'", s)
	case "DateType", "TimestampType":
		return dateFromString(s)
	case "UUIDType", "LexicalUUIDType", "TimeUUIDType":
		u, err := uuid.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("unable to make UUID from '%s'", s)
		}
		return u[:], nil
	case "InetAddressType":
		a, err := netip.ParseAddr(strings.TrimPrefix(s, "/"))
		if err != nil {
			return nil, fmt.Errorf("unable to make inet address from '%s'", s)
		}
		return a.AsSlice(), nil
	}
	return nil, fmt.Errorf("%s: reading its values from text is not supported", name)
}

func twosComplement(n *big.Int) []byte {
	if n.Sign() >= 0 {
		b := n.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -n-1 in bytes, inverted.
	m := new(big.Int).Neg(n)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	if len(b) == 0 || b[0]&0x80 != 0 {
		b = append([]byte{0}, b...)
	}
	for i := range b {
		b[i] = ^b[i]
	}
	return b
}

func decimalFromString(s string) ([]byte, error) {
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return nil, fmt.Errorf("unable to make BigDecimal from '%s'", s)
		}
		mant, exp = s[:i], e
	}
	scale := 0
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		scale = len(mant) - i - 1
		mant = mant[:i] + mant[i+1:]
	}
	n, ok := new(big.Int).SetString(mant, 10)
	if !ok {
		return nil, fmt.Errorf("unable to make BigDecimal from '%s'", s)
	}
	scale -= exp
	return append(binary.BigEndian.AppendUint32(nil, uint32(int32(scale))), twosComplement(n)...), nil
}

// dateFromString reads what 1.2's DateType.fromString read: milliseconds
// since the epoch, or a date in one of its patterns (the one getString
// prints first).
func dateFromString(s string) ([]byte, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return binary.BigEndian.AppendUint64(nil, uint64(n)), nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05-0700", "2006-01-02 15:04-0700", "2006-01-02 15:04Z0700", "2006-01-02 15:04:05",
		"2006-01-02 15:04", "2006-01-02T15:04:05-0700", "2006-01-02T15:04-0700", "2006-01-02T15:04:05", "2006-01-02", "2006-01-02-0700"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return binary.BigEndian.AppendUint64(nil, uint64(t.UnixMilli())), nil
		}
	}
	return nil, fmt.Errorf("unable to coerce '%s' to a formatted date (long)", s)
}

// compositeFromString is AbstractCompositeType.fromString: components
// split on ':' not preceded by '\', each unescaped and read with its
// type; a last component "!" sets the end-of-component byte to 1.
func compositeFromString(args, s string) ([]byte, error) {
	types := splitTypes(args)
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == ':' && (i == 0 || s[i-1] != '\\') {
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	if s != "" {
		parts = append(parts, s[start:])
	}
	var out []byte
	for i, p := range parts {
		if p == "!" {
			if len(out) > 0 {
				out[len(out)-1] = 1
			}
			break
		}
		if i >= len(types) {
			return nil, fmt.Errorf("too many components in '%s' for CompositeType(%s)", s, args)
		}
		p = strings.ReplaceAll(p, `\:`, ":")
		if strings.HasSuffix(p, "!") {
			p = p[:len(p)-1]
		}
		c, err := fromString(strings.TrimPrefix(types[i], marshalPrefix), p)
		if err != nil {
			return nil, err
		}
		out = binary.BigEndian.AppendUint16(out, uint16(len(c)))
		out = append(append(out, c...), 0)
	}
	return out, nil
}

// splitTypes splits a type list at its top-level commas.
func splitTypes(args string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range args {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(args[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(args[start:]))
}
