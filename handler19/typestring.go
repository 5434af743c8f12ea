package handler19

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// The text Cassandra 1.2's AbstractType.getString gives a value of each
// type, for the messages that name a column ("... [KS][CF][NAME] failed
// validation"). The value has passed the type's validation already.

const marshalPrefix = "org.apache.cassandra.db.marshal."

// typeText is getString of the type named typ (as Comparator.Name gives
// it) for b.
func typeText(typ string, b []byte) string {
	name := strings.TrimPrefix(typ, marshalPrefix)
	base, params, _ := strings.Cut(name, "(")
	params = strings.TrimSuffix(params, ")")
	switch base {
	case "UTF8Type", "AsciiType":
		return string(b)
	case "LongType", "CounterColumnType":
		if len(b) != 8 {
			return ""
		}
		return strconv.FormatInt(int64(binary.BigEndian.Uint64(b)), 10)
	case "Int32Type":
		if len(b) != 4 {
			return ""
		}
		return strconv.FormatInt(int64(int32(binary.BigEndian.Uint32(b))), 10)
	case "IntegerType":
		if len(b) == 0 {
			return "empty"
		}
		return signedBig(b).String()
	case "DecimalType":
		if len(b) == 0 {
			return "empty"
		}
		if len(b) < 4 {
			return hex.EncodeToString(b)
		}
		return plainDecimal(signedBig(b[4:]), int32(binary.BigEndian.Uint32(b)))
	case "BooleanType":
		if len(b) == 0 || b[0] == 0 {
			return "false"
		}
		return "true"
	case "DateType":
		if len(b) != 8 {
			return ""
		}
		// SimpleDateFormat "yyyy-MM-dd HH:mm:ssZ" in the server's zone:
		// thriftd's is UTC.
		return time.UnixMilli(int64(binary.BigEndian.Uint64(b))).UTC().Format("2006-01-02 15:04:05-0700")
	case "DoubleType":
		if len(b) != 8 {
			return ""
		}
		return javaFloat(math.Float64frombits(binary.BigEndian.Uint64(b)), 64)
	case "FloatType":
		if len(b) != 4 {
			return ""
		}
		return javaFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(b))), 32)
	case "UUIDType", "TimeUUIDType", "LexicalUUIDType":
		if len(b) != 16 {
			return ""
		}
		h := hex.EncodeToString(b)
		return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	case "InetAddressType":
		return hostAddress(b)
	case "ReversedType":
		return typeText(params, b)
	case "CompositeType":
		return compositeText(splitTypes(params), b)
	}
	return hex.EncodeToString(b)
}

// signedBig is new BigInteger(bytes): two's complement, big-endian.
func signedBig(b []byte) *big.Int {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return n
}

// plainDecimal is BigDecimal.toPlainString of unscaled × 10^-scale.
func plainDecimal(unscaled *big.Int, scale int32) string {
	neg := unscaled.Sign() < 0
	digits := new(big.Int).Abs(unscaled).String()
	switch {
	case scale <= 0:
		if unscaled.Sign() != 0 {
			digits += strings.Repeat("0", int(-scale))
		}
	case int(scale) >= len(digits):
		digits = "0." + strings.Repeat("0", int(scale)-len(digits)) + digits
	default:
		digits = digits[:len(digits)-int(scale)] + "." + digits[len(digits)-int(scale):]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// javaFloat is Double.toString (bits 64) or Float.toString (bits 32):
// plain notation from 10^-3 up to 10^7, computerized scientific notation
// ("1.0E10") outside, always a digit after the point.
func javaFloat(v float64, bits int) string {
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
	abs := math.Abs(v)
	if abs >= 1e-3 && abs < 1e7 {
		s := strconv.FormatFloat(v, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(v, 'e', -1, bits) // e.g. 1e+10, -1.5e-05
	mant, exp, _ := strings.Cut(s, "e")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	e, _ := strconv.Atoi(exp)
	return mant + "E" + strconv.Itoa(e)
}

// hostAddress is InetAddress.getHostAddress of a 4- or 16-byte address;
// an IPv4-mapped IPv6 address is an IPv4 one there.
func hostAddress(b []byte) string {
	if len(b) == 16 && strings.Repeat("\x00", 10)+"\xff\xff" == string(b[:12]) {
		b = b[12:]
	}
	switch len(b) {
	case 4:
		return strconv.Itoa(int(b[0])) + "." + strconv.Itoa(int(b[1])) + "." + strconv.Itoa(int(b[2])) + "." + strconv.Itoa(int(b[3]))
	case 16:
		parts := make([]string, 8)
		for i := range parts {
			parts[i] = strconv.FormatUint(uint64(binary.BigEndian.Uint16(b[2*i:])), 16)
		}
		return strings.Join(parts, ":")
	}
	return hex.EncodeToString(b)
}

// splitTypes splits a type parameter list at its top-level commas.
func splitTypes(params string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range params {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(params[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(params[start:]))
}

// compositeText is AbstractCompositeType.getString: the components'
// texts, escaped, joined by ':'; a component that ends with a non-zero
// end-of-component byte ends the text with ":!".
func compositeText(types []string, b []byte) string {
	var sb strings.Builder
	for i := 0; len(b) > 0; i++ {
		if i > 0 {
			sb.WriteString(":")
		}
		if len(b) < 2 {
			break
		}
		n := int(binary.BigEndian.Uint16(b))
		if len(b) < 2+n+1 {
			break
		}
		typ := marshalPrefix + "BytesType"
		if i < len(types) {
			typ = types[i]
		}
		sb.WriteString(escapeComponent(typeText(typ, b[2:2+n])))
		eoc := b[2+n]
		b = b[2+n+1:]
		if eoc != 0 {
			sb.WriteString(":!")
			break
		}
	}
	return sb.String()
}

// escapeComponent is AbstractCompositeType.escape.
func escapeComponent(s string) string {
	if s == "" {
		return s
	}
	s = strings.ReplaceAll(s, ":", `\:`)
	if last := s[len(s)-1]; last == '\\' || last == '!' {
		s += "!"
	}
	return s
}
