package cli

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/thriftd/thriftd/marshal"
)

// encodeName turns a literal into the bytes of a column name sorted by c,
// then checks them with c's own validation, whose message is 0.6's.
//
//   - 'text' is the decimal number under LongType, the UUID under
//     LexicalUUIDType and TimeUUIDType, and its UTF-8 bytes otherwise.
//   - A bare number is an 8-byte big-endian long, under LongType only.
//   - A bare UUID is its 16 bytes, under BytesType and the UUID types.
//   - 0xHEX, long(N), timeuuid() and lexicaluuid() mean the same bytes
//     under every comparator.
func encodeName(l Literal, c marshal.Comparator) ([]byte, error) {
	b, err := encodeTyped(l, c)
	if err != nil {
		return nil, err
	}
	if err := c.Validate(b); err != nil {
		return nil, fmt.Errorf("%s is not a valid %s name: %v", l, shortName(c), err)
	}
	return b, nil
}

func encodeTyped(l Literal, c marshal.Comparator) ([]byte, error) {
	switch l.Kind {
	case LitString:
		switch c.(type) {
		case marshal.LongType:
			n, err := strconv.ParseInt(strings.TrimSpace(l.Text), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s is not a number, and names sorted by LongType are 64-bit integers", l)
			}
			return longBytes(n), nil
		case marshal.LexicalUUIDType, marshal.TimeUUIDType:
			u, err := uuid.Parse(l.Text)
			if err != nil {
				return nil, fmt.Errorf("%s is not a UUID, and names sorted by %s are UUIDs", l, shortName(c))
			}
			return u[:], nil
		}
		return []byte(l.Text), nil
	case LitNumber:
		if _, ok := c.(marshal.LongType); !ok {
			return nil, fmt.Errorf("a bare number names a column sorted by LongType, not %s: write '%s' for text or long(%s) for 8 bytes", shortName(c), l.Text, l.Text)
		}
		n, err := strconv.ParseInt(l.Text, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s does not fit in a 64-bit integer", l.Text)
		}
		return longBytes(n), nil
	case LitUUID:
		switch c.(type) {
		case marshal.UTF8Type, marshal.AsciiType:
			return nil, fmt.Errorf("a bare UUID is 16 bytes, not %s text: quote it ('%s') for text", shortName(c), l.Text)
		}
	}
	return encodeValue(l)
}

// encodeValue turns a literal into the bytes of a column value: 'text'
// is its UTF-8 bytes, and typed literals are their bytes.
func encodeValue(l Literal) ([]byte, error) {
	switch l.Kind {
	case LitString:
		return []byte(l.Text), nil
	case LitHex:
		return hex.DecodeString(l.Text)
	case LitUUID:
		u, err := uuid.Parse(l.Text)
		if err != nil {
			return nil, fmt.Errorf("%s is not a UUID: %v", l.Text, err)
		}
		return u[:], nil
	case LitNumber:
		return nil, fmt.Errorf("write '%s' for text or long(%s) for 8 bytes", l.Text, l.Text)
	case LitFunc:
		switch l.Text {
		case "long":
			n, err := strconv.ParseInt(l.Arg.Text, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("long(%s): not a 64-bit integer", l.Arg.Text)
			}
			return longBytes(n), nil
		case "timeuuid":
			u, err := uuid.NewUUID()
			if err != nil {
				return nil, fmt.Errorf("timeuuid(): %v", err)
			}
			return u[:], nil
		case "lexicaluuid":
			u, err := uuid.NewRandom()
			if err != nil {
				return nil, fmt.Errorf("lexicaluuid(): %v", err)
			}
			return u[:], nil
		}
	}
	return nil, fmt.Errorf("%s cannot be used here", l)
}

func longBytes(n int64) []byte {
	return binary.BigEndian.AppendUint64(nil, uint64(n))
}

// String writes the literal as it could be typed.
func (l Literal) String() string {
	switch l.Kind {
	case LitString:
		return "'" + escapeString(l.Text) + "'"
	case LitHex:
		return "0x" + l.Text
	case LitFunc:
		if l.Arg != nil {
			return l.Text + "(" + l.Arg.Text + ")"
		}
		return l.Text + "()"
	}
	return l.Text
}

// shortName is a comparator's class name without its Java package.
func shortName(c marshal.Comparator) string {
	n := c.Name()
	return n[strings.LastIndexByte(n, '.')+1:]
}
