package handler

import (
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// modifiedUTF8LengthUTF16 is the definition from Java's
// DataOutputStream.writeUTF, counted over UTF-16 code units; it checks
// modifiedUTF8Length, which counts runes.
func modifiedUTF8LengthUTF16(s string) int {
	n := 0
	for _, c := range utf16.Encode([]rune(s)) {
		switch {
		case c >= 0x0001 && c <= 0x007f:
			n++
		case c > 0x07ff:
			n += 3
		default:
			n += 2
		}
	}
	return n
}

func TestModifiedUTF8Length(t *testing.T) {
	tests := []struct {
		s    string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"\x00", 2},
		{"é", 2},
		{"\u07ff", 2},
		{"\u0800", 3},
		{"€", 3},
		{"\uffff", 3},
		{"\U00010000", 6},
		{"a\x00é€😀", 1 + 2 + 2 + 3 + 6},
	}
	for _, tt := range tests {
		if got := modifiedUTF8Length(tt.s); got != tt.want {
			t.Errorf("modifiedUTF8Length(%q) = %d, want %d", tt.s, got, tt.want)
		}
		if got := modifiedUTF8LengthUTF16(tt.s); got != tt.want {
			t.Errorf("reference(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

func FuzzModifiedUTF8Length(f *testing.F) {
	for _, s := range []string{"", "a", "\x00", "é€😀", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = javaString(s)
		if got, want := modifiedUTF8Length(s), modifiedUTF8LengthUTF16(s); got != want {
			t.Errorf("modifiedUTF8Length(%q) = %d, want %d", s, got, want)
		}
		// validateKey's shortcut assumes at most twice the UTF-8 length.
		if modifiedUTF8Length(s) > 2*len(s) {
			t.Errorf("%q grows more than twice", s)
		}
	})
}

func TestJavaString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"é€😀", "é€😀"},
		{"a\xffb", "a\uFFFDb"},
		{"\xff\xfe", "\uFFFD\uFFFD"},
		{"\xe2\x82", "\uFFFD\uFFFD"}, // truncated sequence: one per byte
		{"\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
		{"ok\xc3", "ok\uFFFD"},
	}
	for _, tt := range tests {
		if got := javaString(tt.in); got != tt.want {
			t.Errorf("javaString(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzJavaString(f *testing.F) {
	f.Add("a\xffb")
	f.Fuzz(func(t *testing.T, s string) {
		j := javaString(s)
		if !utf8.ValidString(j) {
			t.Fatalf("javaString(%q) = %q is not valid UTF-8", s, j)
		}
		if javaString(j) != j {
			t.Fatalf("javaString is not idempotent on %q", s)
		}
		if utf8.ValidString(s) && j != s {
			t.Fatalf("valid %q changed to %q", s, j)
		}
	})
}

func TestValidateKey(t *testing.T) {
	tests := []struct {
		key  string
		want string
	}{
		{"k", ""},
		{"", "Key may not be empty"},
		{string(long65535), ""},
		{string(long65536), "Encoded key length of 65536 is longer than maximum of 65535"},
	}
	for _, tt := range tests {
		err := validateKey(tt.key)
		got := ""
		if err != nil {
			got = whyOfDomain(err)
		}
		if got != tt.want {
			t.Errorf("validateKey(%d bytes) = %q, want %q", len(tt.key), got, tt.want)
		}
	}
}
