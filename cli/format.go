package cli

import (
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/thriftd/thriftd/marshal"
)

// formatName shows a column name as its comparator reads it: a number
// under LongType, a canonical UUID under the UUID types, and otherwise
// text when it is printable UTF-8. Anything else (a name of the wrong
// length, bytes that are not printable) is 0x and lowercase hex, which
// the parser reads back as the same bytes.
func formatName(c marshal.Comparator, b []byte) string {
	switch c.(type) {
	case marshal.LongType:
		if len(b) == 8 {
			return strconv.FormatInt(int64(binary.BigEndian.Uint64(b)), 10)
		}
	case marshal.LexicalUUIDType, marshal.TimeUUIDType:
		if len(b) == 16 {
			return uuid.UUID(b).String()
		}
	}
	return formatValue(b)
}

// formatValue shows a value as text when it is printable UTF-8, else as
// 0x and lowercase hex.
func formatValue(b []byte) string {
	if len(b) == 0 || printable(b) {
		return string(b)
	}
	return "0x" + hex.EncodeToString(b)
}

// printable reports whether b is valid UTF-8 made only of graphic
// characters and spaces: no control characters, so that one column
// prints on one line.
func printable(b []byte) bool {
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n <= 1 {
			return false
		}
		if !unicode.IsGraphic(r) {
			return false
		}
		b = b[n:]
	}
	return true
}
