package handler

import (
	"strings"
	"unicode/utf8"
)

// maxKeyLength is the largest row key 0.6 accepted: its modified-UTF-8
// encoding had to fit DataOutput.writeUTF's 2-byte length.
const maxKeyLength = 65535

// javaString returns s as 0.6 saw it. Thrift `string` fields (keys,
// keyspace and column family names, tokens) were decoded by Java as UTF-8
// into java.lang.String, with U+FFFD in place of malformed input. Go keeps
// the raw bytes, so without this a key with invalid UTF-8 would name a
// different row than it did in 0.6.
//
// Each byte that does not start a valid sequence becomes one U+FFFD. Java's
// decoder may fold a truncated multi-byte sequence into a single U+FFFD;
// that difference only matters for keys that were already corrupt.
func javaString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// modifiedUTF8Length is the length of s in Java's modified UTF-8, counted
// per UTF-16 code unit: U+0001..U+007F take 1 byte, U+0000 and
// U+0080..U+07FF take 2, the rest of the BMP 3, and a supplementary
// character is a surrogate pair of 3+3. s must be valid UTF-8.
func modifiedUTF8Length(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r == 0:
			n += 2
		case r <= 0x7f:
			n++
		case r <= 0x7ff:
			n += 2
		case r <= 0xffff:
			n += 3
		default:
			n += 6
		}
	}
	return n
}

// validateKey is ThriftValidation.validateKey. key must already have gone
// through javaString.
func validateKey(key string) error {
	if key == "" {
		return invalid("Key may not be empty")
	}
	// Modified UTF-8 is at most twice as long as UTF-8 (U+0000: 1 byte
	// becomes 2), so short keys need no count.
	if len(key)*2 <= maxKeyLength {
		return nil
	}
	if n := modifiedUTF8Length(key); n > maxKeyLength {
		return invalid("Encoded key length of %d is longer than maximum of %d", n, maxKeyLength)
	}
	return nil
}
