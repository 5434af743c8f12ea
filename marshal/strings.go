package marshal

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
)

// String methods: AbstractType.getString of 1.2.19, a value as the real
// server prints it in messages such as "(...) [ks][cf][NAME] failed
// validation". They are meant for values that Validate accepts; for
// others (where the real getString throws) they print hex.

func (bytes12) String(b []byte) string { return hex.EncodeToString(b) }
func (ascii12) String(b []byte) string { return string(b) }
func (utf812) String(b []byte) string  { return string(b) }

func (long12) String(b []byte) string {
	if len(b) != 8 {
		return fixedString(b, 8)
	}
	return strconv.FormatInt(int64(binary.BigEndian.Uint64(b)), 10)
}

func (int3212) String(b []byte) string {
	if len(b) != 4 {
		return fixedString(b, 4)
	}
	return strconv.FormatInt(int64(int32(binary.BigEndian.Uint32(b))), 10)
}

// fixedString is getString of a fixed-width number of the wrong width:
// "" for the empty value, else hex (the real server throws).
func fixedString(b []byte, width int) string {
	if len(b) == 0 {
		return ""
	}
	return hex.EncodeToString(b)
}

func (counter12) String(b []byte) string { return hex.EncodeToString(b) }
func (empty12) String([]byte) string     { return "" }

// dateString formats milliseconds since 1970 as Java's SimpleDateFormat
// does in the server's time zone (DateType: 1.2's JdbcDate, "yyyy-MM-dd
// HH:mm:ssZ").
// Java's calendar is Julian before October 1582 and prints years before 1
// as years of an era; those dates (beyond any real use) are printed here
// in the proleptic Gregorian calendar.
func dateString(b []byte, layout string) string {
	if len(b) != 8 {
		return fixedString(b, 8)
	}
	ms := int64(binary.BigEndian.Uint64(b))
	return time.UnixMilli(ms).Format(layout)
}

func (date12) String(b []byte) string { return dateString(b, "2006-01-02 15:04:05-0700") }

// String is 2.1's TimestampSerializer: minutes, and Z for UTC
// ("yyyy-MM-dd HH:mmXX").
func (timestamp21) String(b []byte) string { return dateString(b, "2006-01-02 15:04Z0700") }

func (integer12) String(b []byte) string {
	if len(b) == 0 {
		return "empty"
	}
	return twosComplement(b).String()
}

// maxPlainScale bounds the scales DecimalType prints in plain form.
const maxPlainScale = 1 << 12

// String is BigDecimal.toPlainString.
func (decimal12) String(b []byte) string {
	switch {
	case len(b) == 0:
		return "empty"
	case len(b) < 5:
		return hex.EncodeToString(b)
	}
	scale := int(int32(binary.BigEndian.Uint32(b)))
	u := twosComplement(b[4:])
	neg := u.Sign() < 0
	digits := new(big.Int).Abs(u).String()
	var s string
	switch {
	case scale > maxPlainScale || scale < -maxPlainScale:
		// The plain form would be up to 2^31 digits long (the real server
		// built it and ran out of memory): BigDecimal.toString's
		// scientific form instead.
		adjusted := int64(len(digits)) - 1 - int64(scale)
		s = digits[:1]
		if len(digits) > 1 {
			s += "." + digits[1:]
		}
		s += "E"
		if adjusted >= 0 {
			s += "+"
		}
		s += strconv.FormatInt(adjusted, 10)
	case scale <= 0:
		s = digits
		if u.Sign() != 0 || scale == 0 {
			s += strings.Repeat("0", -scale)
		}
	case len(digits) > scale:
		s = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	default:
		s = "0." + strings.Repeat("0", scale-len(digits)) + digits
	}
	if neg {
		s = "-" + s
	}
	return s
}

func (boolean12) String(b []byte) string {
	switch {
	case len(b) == 0:
		return "false"
	case len(b) != 1:
		return hex.EncodeToString(b)
	case b[0] == 0:
		return "false"
	}
	return "true"
}

// String is Double.toString or Float.toString.
func (f float12) String(b []byte) string {
	if len(b) != f.width {
		return fixedString(b, f.width)
	}
	var v float64
	bits := 64
	if f.width == 4 {
		v, bits = float64(math.Float32frombits(binary.BigEndian.Uint32(b))), 32
	} else {
		v = math.Float64frombits(binary.BigEndian.Uint64(b))
	}
	return javaFloat(v, bits)
}

// javaFloat formats v as Java's Double.toString (bits 64) or
// Float.toString (bits 32): plain between 10^-3 and 10^7, else
// computerized scientific notation, always with a fractional digit, from
// the shortest digits that read back as v.
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
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	// d.ddddde±x: the shortest digits and the exponent.
	e := strconv.FormatFloat(v, 'e', -1, bits)
	mant, expStr, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	if v >= 1e-3 && v < 1e7 {
		var s string
		switch {
		case exp >= 0 && exp+1 >= len(digits):
			s = digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
		case exp >= 0:
			s = digits[:exp+1] + "." + digits[exp+1:]
		default:
			s = "0." + strings.Repeat("0", -exp-1) + digits
		}
		return sign + s
	}
	frac := digits[1:]
	if frac == "" {
		frac = "0"
	}
	return sign + digits[:1] + "." + frac + "E" + strconv.Itoa(exp)
}

// String is InetAddress.getHostAddress: dotted for IPv4 (and for an IPv6
// address that maps one), else eight groups of hex without compression.
func (inet12) String(b []byte) string {
	switch len(b) {
	case 4:
		return fmt.Sprintf("%d.%d.%d.%d", b[0], b[1], b[2], b[3])
	case 16:
		if string(b[:12]) == "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff" {
			return fmt.Sprintf("%d.%d.%d.%d", b[12], b[13], b[14], b[15])
		}
		groups := make([]string, 8)
		for i := range groups {
			groups[i] = strconv.FormatUint(uint64(binary.BigEndian.Uint16(b[2*i:])), 16)
		}
		return strings.Join(groups, ":")
	}
	return hex.EncodeToString(b)
}

func uuidString(b []byte) string {
	if len(b) != uuidSize {
		return fixedString(b, uuidSize)
	}
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func (uuid12) String(b []byte) string        { return uuidString(b) }
func (lexicalUUID12) String(b []byte) string { return uuidString(b) }
func (timeUUID12) String(b []byte) string    { return uuidString(b) }

func (r *reversed) String(b []byte) string { return typeString(r.base, b) }

// typeString is t's getString of b, hex when t has none.
func typeString(t Comparator, b []byte) string {
	if p, ok := t.(interface{ String([]byte) string }); ok {
		return p.String(b)
	}
	return hex.EncodeToString(b)
}

// escapeComponent is AbstractCompositeType.escape: ':' becomes "\:", and
// a value ending in '\' or '!' gets a '!' more.
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

// String is AbstractCompositeType.getString: the components' strings
// joined by ':', and ":!" after a non-zero end-of-component byte.
func (c *composite) String(b []byte) string {
	var sb strings.Builder
	for i := 0; len(b) > 0; i++ {
		if i > 0 {
			sb.WriteByte(':')
		}
		v, eoc, rest := readComponent(b)
		sb.WriteString(escapeComponent(typeString(c.typeAt(i), v)))
		if eoc != 0 {
			sb.WriteString(":!")
			break
		}
		b = rest
	}
	return sb.String()
}

// String is DynamicCompositeType's getString: each component prefixed by
// its alias or type name and '@'.
func (d *dynamicComposite) String(b []byte) string {
	var sb strings.Builder
	for i := 0; len(b) > 0; i++ {
		if i > 0 {
			sb.WriteByte(':')
		}
		if len(b) >= 2 {
			h := int(binary.BigEndian.Uint16(b))
			if h&0x8000 != 0 {
				sb.WriteByte(byte(h))
			} else if 2+h <= len(b) {
				sb.Write(b[2 : 2+h])
			}
		}
		sb.WriteByte('@')
		t, rest := d.componentType(b)
		v, eoc, rest := readComponent(rest)
		sb.WriteString(escapeComponent(typeString(orBytes(t), v)))
		if eoc != 0 {
			sb.WriteString(":!")
			break
		}
		b = rest
	}
	return sb.String()
}
