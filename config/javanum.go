package config

import (
	"math"
	"strconv"
	"strings"
	"unicode"
)

// Cassandra 0.6 parsed numbers with Integer.parseInt, Long.parseLong and
// Double.parseDouble and aborted start-up on a NumberFormatException. These
// functions accept exactly what those did, so a file 0.6 accepted gives the
// same values here and a file it refused is refused here, with Java's
// message.

// numberFormatError is the message of Java's NumberFormatException for s.
func numberFormatError(s string) string {
	return "For input string: \"" + s + "\""
}

// parseJavaInt parses s as Integer.parseInt (bits 32) or Long.parseLong
// (bits 64) do: an optional sign, then one or more decimal digits, nothing
// else (no spaces, no underscores, no radix prefix). Like Java's
// Character.digit, any Unicode decimal digit of the Basic Multilingual Plane
// counts (Java reads UTF-16 units, so a digit outside the BMP does not).
// The error text is Java's.
func parseJavaInt(s string, bits int) (int64, error) {
	fail := func() (int64, error) { return 0, numError(numberFormatError(s)) }
	if s == "" {
		return fail()
	}
	// Accumulate negatively, as Java does, so that the minimum value, whose
	// magnitude is one more than the maximum's, parses without overflow.
	limit := -int64(math.MaxInt32)
	if bits == 64 {
		limit = -math.MaxInt64
	}
	rest := s
	neg := false
	switch s[0] {
	case '-':
		neg = true
		limit--
		rest = s[1:]
	case '+':
		rest = s[1:]
	}
	if rest == "" {
		return fail()
	}
	multmin := limit / 10
	var result int64
	for _, r := range rest {
		d := javaDigit(r)
		if d < 0 || result < multmin {
			return fail()
		}
		result *= 10
		if result < limit+int64(d) {
			return fail()
		}
		result -= int64(d)
	}
	if neg {
		return result, nil
	}
	return -result, nil
}

// javaDigit is Character.digit(r, 10) for a UTF-16 unit: the value of a
// Unicode decimal digit (general category Nd), or -1.
func javaDigit(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	if r < 0x80 || r > 0xFFFF || !unicode.Is(unicode.Nd, r) {
		return -1
	}
	// Every Nd range of the Unicode tables is a run of whole blocks of ten
	// consecutive digits, each starting at its zero (checked by a test).
	for _, rg := range unicode.Nd.R16 {
		if r >= rune(rg.Lo) && r <= rune(rg.Hi) {
			return int(r-rune(rg.Lo)) % 10
		}
	}
	return -1
}

// parseJavaDouble parses s as Double.parseDouble does: surrounding
// characters <= ' ' are trimmed; then an optional sign and either "NaN",
// "Infinity", a decimal literal ("1", "1.", ".5", "1e-3") or a hexadecimal
// one ("0x1.8p3"), optionally followed by one of f, F, d, D. Values too
// large become infinities and values too small become zero, as in Java.
func parseJavaDouble(s string) (float64, error) {
	t := strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if t == "" {
		return 0, numError("empty String")
	}
	body := t
	sign := ""
	if body[0] == '+' || body[0] == '-' {
		sign, body = body[:1], body[1:]
	}
	switch body {
	case "NaN":
		return math.NaN(), nil
	case "Infinity":
		if sign == "-" {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	}
	if n := len(body); n > 0 && strings.IndexByte("fFdD", body[n-1]) >= 0 {
		body = body[:n-1]
	}
	var ok bool
	if len(body) > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X') {
		ok = isHexFloatLiteral(body[2:])
	} else {
		ok = isDecimalFloatLiteral(body)
	}
	if !ok {
		return 0, numError(numberFormatError(t))
	}
	f, err := strconv.ParseFloat(sign+body, 64)
	if err != nil && !isRangeError(err) {
		// Unreachable for a literal that passed the grammar check; refuse
		// rather than guess.
		return 0, numError(numberFormatError(t))
	}
	return f, nil
}

func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// isDecimalFloatLiteral reports whether s is Digits? ['.' Digits?]
// [Exponent] with at least one digit in the significand (ASCII digits only,
// as in Java's floating-point grammar).
func isDecimalFloatLiteral(s string) bool {
	i, digits := scanDigits(s, 0, isDecimalDigit)
	if i < len(s) && s[i] == '.' {
		var more int
		i, more = scanDigits(s, i+1, isDecimalDigit)
		digits += more
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		var ok bool
		if i, ok = scanExponent(s, i+1); !ok {
			return false
		}
	}
	return i == len(s)
}

// isHexFloatLiteral reports whether s (after "0x") is HexDigits?
// ['.' HexDigits?] with at least one digit, followed by a mandatory binary
// exponent [pP][sign]Digits.
func isHexFloatLiteral(s string) bool {
	i, digits := scanDigits(s, 0, isHexDigit)
	if i < len(s) && s[i] == '.' {
		var more int
		i, more = scanDigits(s, i+1, isHexDigit)
		digits += more
	}
	if digits == 0 || i >= len(s) || (s[i] != 'p' && s[i] != 'P') {
		return false
	}
	i, ok := scanExponent(s, i+1)
	return ok && i == len(s)
}

func scanDigits(s string, i int, is func(byte) bool) (end, n int) {
	for end = i; end < len(s) && is(s[end]); end++ {
	}
	return end, end - i
}

func scanExponent(s string, i int) (int, bool) {
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	end, n := scanDigits(s, i, isDecimalDigit)
	return end, n > 0
}

func isDecimalDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHexDigit(c byte) bool {
	return isDecimalDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// numError is a number that does not parse; its text is Java's
// NumberFormatException message.
type numError string

func (e numError) Error() string { return string(e) }
