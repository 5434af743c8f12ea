package marshal

import (
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"
)

// StringError is the error Cassandra 1.2's getString throws for name under
// t, or nil when it prints. getString checks differently from validate, with
// messages of its own: a LongType name of 1 byte fails validate with
// "Expected 8 or 0 byte long (1)" but getString with "A long is exactly 8
// bytes: 1". The real server printed names with getString while it built a
// column family's definition, so a declared column name the comparator
// refuses is reported with this message. Types without a check of their own
// in getString answer validate's error.
func StringError(t Comparator, name []byte) error {
	if r, ok := t.(*reversed); ok {
		return StringError(r.base, name)
	}
	n := len(name)
	width := func(want int, msg string) error {
		if n != 0 && n != want {
			return MarshalError(fmt.Sprintf(msg, n))
		}
		return nil
	}
	switch strings.TrimPrefix(t.Name(), marshalPackage) {
	case "LongType":
		return width(8, "A long is exactly 8 bytes: %d")
	case "Int32Type":
		return width(4, "A int is exactly 4 bytes: %d")
	case "DateType":
		return width(8, "A date is exactly 8 bytes (stored as a long): %d")
	case "BooleanType":
		return width(1, "A boolean is stored in exactly 1 byte: %d")
	case "DoubleType":
		return width(8, "A double is exactly 8 bytes : %d")
	case "FloatType":
		return width(4, "A float is exactly 4 bytes : %d")
	case "UUIDType", "LexicalUUIDType":
		if n != 0 && n != 16 {
			return MarshalError("UUIDs must be exactly 16 bytes")
		}
		return nil
	case "TimeUUIDType":
		switch {
		case n == 0:
			return nil
		case n != 16:
			return MarshalError("UUIDs must be exactly 16 bytes")
		case name[6]>>4 != 1:
			return MarshalError("TimeUUID only makes sense with version 1 UUIDs")
		}
		return nil
	case "AsciiType":
		for _, b := range name {
			if b > 0x7f {
				return MarshalError("Invalid ascii bytes " + hex.EncodeToString(name))
			}
		}
		return nil
	case "UTF8Type":
		if !utf8.Valid(name) {
			return MarshalError("invalid UTF8 bytes " + hex.EncodeToString(name))
		}
		return nil
	}
	return t.Validate(name)
}
