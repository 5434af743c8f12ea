package config

import (
	"math"
	"testing"
	"unicode"
)

// Expected results are Java's documented behaviour of Integer.parseInt,
// Long.parseLong and Double.parseDouble.
func TestParseJavaInt(t *testing.T) {
	tests := []struct {
		in   string
		bits int
		want int64
		ok   bool
	}{
		{"0", 32, 0, true},
		{"9160", 32, 9160, true},
		{"-1", 32, -1, true},
		{"+7", 32, 7, true},
		{"007", 32, 7, true},
		{"2147483647", 32, math.MaxInt32, true},
		{"-2147483648", 32, math.MinInt32, true},
		{"2147483648", 32, 0, false},
		{"-2147483649", 32, 0, false},
		{"9223372036854775807", 64, math.MaxInt64, true},
		{"-9223372036854775808", 64, math.MinInt64, true},
		{"9223372036854775808", 64, 0, false},
		{"99999999999999999999", 64, 0, false},
		{"2147483648", 64, 2147483648, true},
		{"", 32, 0, false},
		{"-", 32, 0, false},
		{"+", 32, 0, false},
		{" 1", 32, 0, false},
		{"1 ", 32, 0, false},
		{"1_000", 32, 0, false},
		{"0x10", 32, 0, false},
		{"1.0", 32, 0, false},
		{"1e3", 32, 0, false},
		{"--1", 32, 0, false},
		{"١٢٣", 32, 123, true},       // Arabic-Indic digits: Character.digit accepts them
		{"１０", 32, 10, true},         // fullwidth digits
		{"\U0001D7CE", 32, 0, false}, // MATHEMATICAL BOLD DIGIT ZERO: outside the BMP
		{"Ⅻ", 32, 0, false},          // a letter number, not a decimal digit
	}
	for _, tc := range tests {
		got, err := parseJavaInt(tc.in, tc.bits)
		if tc.ok != (err == nil) || (tc.ok && got != tc.want) {
			t.Errorf("parseJavaInt(%q, %d) = %d, %v; want %d, ok=%v", tc.in, tc.bits, got, err, tc.want, tc.ok)
		}
		if err != nil && err.Error() != `For input string: "`+tc.in+`"` {
			t.Errorf("parseJavaInt(%q) error %q is not Java's message", tc.in, err)
		}
	}
}

func TestParseJavaDouble(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		in   string
		want float64
		msg  string // error message, "" for success
	}{
		{"1", 1, ""},
		{"1.0", 1, ""},
		{"0.00002", 0.00002, ""},
		{"1.", 1, ""},
		{".5", 0.5, ""},
		{"-2.5e3", -2500, ""},
		{"1E-2", 0.01, ""},
		{"+3", 3, ""},
		{" \t8\n", 8, ""},
		{"1.5f", 1.5, ""},
		{"2D", 2, ""},
		{"0x1.8p1", 3, ""},
		{"0X10P0", 16, ""},
		{"Infinity", inf, ""},
		{"-Infinity", -inf, ""},
		{"1e999", inf, ""},
		{"1e-999", 0, ""},
		{"", 0, "empty String"},
		{"  ", 0, "empty String"},
		{".", 0, `For input string: "."`},
		{"e3", 0, `For input string: "e3"`},
		{"1e", 0, `For input string: "1e"`},
		{"0x10", 0, `For input string: "0x10"`}, // hex needs an exponent
		{"inf", 0, `For input string: "inf"`},
		{"infinity", 0, `For input string: "infinity"`},
		{"nan", 0, `For input string: "nan"`},
		{"1,5", 0, `For input string: "1,5"`},
		{"1_0", 0, `For input string: "1_0"`},
		{"32MB", 0, `For input string: "32MB"`},
		{"Infinityf", 0, `For input string: "Infinityf"`},
		{" 1x ", 0, `For input string: "1x"`}, // Java reports the trimmed text
	}
	for _, tc := range tests {
		got, err := parseJavaDouble(tc.in)
		switch {
		case tc.msg == "" && (err != nil || got != tc.want):
			t.Errorf("parseJavaDouble(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		case tc.msg != "" && (err == nil || err.Error() != tc.msg):
			t.Errorf("parseJavaDouble(%q) error = %v, want %q", tc.in, err, tc.msg)
		}
	}
	if f, err := parseJavaDouble("NaN"); err != nil || !math.IsNaN(f) {
		t.Errorf("parseJavaDouble(NaN) = %v, %v", f, err)
	}
}

// javaDigit relies on every Nd range being whole runs of ten digits that
// start at a zero.
func TestUnicodeDigitRanges(t *testing.T) {
	for _, r := range unicode.Nd.R16 {
		if r.Stride != 1 || (r.Hi-r.Lo+1)%10 != 0 {
			t.Errorf("Nd range %#x-%#x stride %d is not whole runs of ten", r.Lo, r.Hi, r.Stride)
		}
	}
	for r := rune(0); r <= 0xFFFF; r++ {
		d := javaDigit(r)
		if unicode.Is(unicode.Nd, r) != (d >= 0) || d > 9 {
			t.Fatalf("javaDigit(%U) = %d", r, d)
		}
	}
	check(t, "javaDigit('٣')", javaDigit('٣'), 3)
	check(t, "javaDigit('９')", javaDigit('９'), 9)
}
