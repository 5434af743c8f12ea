package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/thriftd/thriftd/marshal"
)

func TestEncodeName(t *testing.T) {
	u := "550e8400-e29b-41d4-a716-446655440000"
	uBytes := uuid.MustParse(u)
	tu := "27809078-e760-11f1-801a-12b19a3d7b43" // a version 1 UUID
	tuBytes := uuid.MustParse(tu)
	long := func(n int64) []byte { return longBytes(n) }
	tests := []struct {
		lit  Literal
		cmp  marshal.Comparator
		want []byte
		err  string
	}{
		{Literal{Kind: LitString, Text: "first"}, marshal.BytesType{}, []byte("first"), ""},
		{Literal{Kind: LitString, Text: "naïve"}, marshal.UTF8Type{}, []byte("naïve"), ""},
		{Literal{Kind: LitString, Text: "42"}, marshal.LongType{}, long(42), ""},
		{Literal{Kind: LitString, Text: "-9223372036854775808"}, marshal.LongType{}, long(-1 << 63), ""},
		{Literal{Kind: LitNumber, Text: "42"}, marshal.LongType{}, long(42), ""},
		{Literal{Kind: LitNumber, Text: "-1"}, marshal.LongType{}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, ""},
		{Literal{Kind: LitString, Text: "abc"}, marshal.LongType{}, nil, "'abc' is not a number"},
		{Literal{Kind: LitNumber, Text: "42"}, marshal.BytesType{}, nil, "write '42' for text or long(42)"},
		{Literal{Kind: LitFunc, Text: "long", Arg: &Literal{Kind: LitNumber, Text: "7"}}, marshal.BytesType{}, long(7), ""},
		{Literal{Kind: LitString, Text: u}, marshal.LexicalUUIDType{}, uBytes[:], ""},
		{Literal{Kind: LitUUID, Text: u}, marshal.LexicalUUIDType{}, uBytes[:], ""},
		{Literal{Kind: LitUUID, Text: u}, marshal.BytesType{}, uBytes[:], ""},
		{Literal{Kind: LitUUID, Text: u}, marshal.UTF8Type{}, nil, "quote it"},
		{Literal{Kind: LitUUID, Text: tu}, marshal.TimeUUIDType{}, tuBytes[:], ""},
		{Literal{Kind: LitUUID, Text: u}, marshal.TimeUUIDType{}, nil, "Invalid version for TimeUUID type."},
		{Literal{Kind: LitString, Text: "nope"}, marshal.TimeUUIDType{}, nil, "'nope' is not a UUID"},
		{Literal{Kind: LitHex, Text: "00ff"}, marshal.BytesType{}, []byte{0, 0xff}, ""},
		{Literal{Kind: LitHex, Text: "00ff"}, marshal.LongType{}, nil, "A long is exactly 8 bytes"},
		{Literal{Kind: LitHex, Text: "c328"}, marshal.UTF8Type{}, nil, "invalid UTF8 bytes [-61, 40]"},
		{Literal{Kind: LitHex, Text: ""}, marshal.LongType{}, []byte{}, ""},
	}
	for _, tt := range tests {
		got, err := encodeName(tt.lit, tt.cmp)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("encodeName(%s, %s) = %x, %v; want an error with %q", tt.lit, shortName(tt.cmp), got, err, tt.err)
			}
			continue
		}
		if err != nil || !bytes.Equal(got, tt.want) {
			t.Errorf("encodeName(%s, %s) = %x, %v; want %x", tt.lit, shortName(tt.cmp), got, err, tt.want)
		}
	}
}

func TestEncodeGeneratedUUIDs(t *testing.T) {
	tu, err := encodeName(Literal{Kind: LitFunc, Text: "timeuuid"}, marshal.TimeUUIDType{})
	if err != nil || len(tu) != 16 || tu[6]>>4 != 1 {
		t.Fatalf("timeuuid() = %x, %v; want a version 1 UUID", tu, err)
	}
	tu2, _ := encodeName(Literal{Kind: LitFunc, Text: "timeuuid"}, marshal.TimeUUIDType{})
	if (marshal.TimeUUIDType{}).Compare(tu, tu2) >= 0 {
		t.Errorf("a second timeuuid() %x does not sort after the first %x", tu2, tu)
	}
	lu, err := encodeName(Literal{Kind: LitFunc, Text: "lexicaluuid"}, marshal.LexicalUUIDType{})
	if err != nil || len(lu) != 16 || lu[6]>>4 != 4 {
		t.Fatalf("lexicaluuid() = %x, %v; want a version 4 UUID", lu, err)
	}
	if _, err := encodeName(Literal{Kind: LitFunc, Text: "lexicaluuid"}, marshal.TimeUUIDType{}); err == nil {
		t.Errorf("lexicaluuid() was accepted as a TimeUUIDType name")
	}
}

func TestEncodeValue(t *testing.T) {
	tests := []struct {
		lit  Literal
		want []byte
	}{
		{Literal{Kind: LitString, Text: "John"}, []byte("John")},
		{Literal{Kind: LitString, Text: ""}, []byte{}},
		{Literal{Kind: LitHex, Text: "cafe"}, []byte{0xca, 0xfe}},
		{Literal{Kind: LitFunc, Text: "long", Arg: &Literal{Kind: LitNumber, Text: "256"}}, []byte{0, 0, 0, 0, 0, 0, 1, 0}},
		{Literal{Kind: LitUUID, Text: "00000000-0000-0000-0000-000000000001"}, append(make([]byte, 15), 1)},
	}
	for _, tt := range tests {
		got, err := encodeValue(tt.lit)
		if err != nil || !bytes.Equal(got, tt.want) {
			t.Errorf("encodeValue(%s) = %x, %v; want %x", tt.lit, got, err, tt.want)
		}
	}
	if _, err := encodeValue(Literal{Kind: LitNumber, Text: "5"}); err == nil {
		t.Errorf("a bare number was accepted as a value")
	}
}

func TestFormat(t *testing.T) {
	u := uuid.MustParse("550e8400-e29b-41d4-a716-446655440000")
	tests := []struct {
		cmp  marshal.Comparator
		in   []byte
		want string
	}{
		{marshal.BytesType{}, []byte("first"), "first"},
		{marshal.BytesType{}, []byte{}, ""},
		{marshal.BytesType{}, []byte{0, 1, 0xff}, "0x0001ff"},
		{marshal.BytesType{}, []byte("two\nlines"), "0x74776f0a6c696e6573"},
		{marshal.UTF8Type{}, []byte("naïve ☃"), "naïve ☃"},
		{marshal.UTF8Type{}, []byte{0xc3, 0x28}, "0xc328"},
		{marshal.AsciiType{}, []byte("plain text"), "plain text"},
		{marshal.LongType{}, longBytes(42), "42"},
		{marshal.LongType{}, longBytes(-7), "-7"},
		{marshal.LongType{}, []byte{1, 2}, "0x0102"},
		{marshal.LexicalUUIDType{}, u[:], "550e8400-e29b-41d4-a716-446655440000"},
		{marshal.TimeUUIDType{}, u[:], "550e8400-e29b-41d4-a716-446655440000"},
		{marshal.TimeUUIDType{}, []byte("short"), "short"},
	}
	for _, tt := range tests {
		if got := formatName(tt.cmp, tt.in); got != tt.want {
			t.Errorf("formatName(%s, %x) = %q, want %q", shortName(tt.cmp), tt.in, got, tt.want)
		}
	}
	for in, want := range map[string]string{"John": "John", "": "", "\x00\x01": "0x0001", "tab\t": "0x74616209"} {
		if got := formatValue([]byte(in)); got != want {
			t.Errorf("formatValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestFormatParsesBack checks that what formatName shows for a name can
// be typed back as a literal meaning the same bytes.
func TestFormatParsesBack(t *testing.T) {
	names := []struct {
		cmp marshal.Comparator
		b   []byte
	}{
		{marshal.BytesType{}, []byte{0, 1, 0xff}},
		{marshal.LongType{}, longBytes(-123456789)},
		{marshal.TimeUUIDType{}, uuidBytes("27809078-e760-11f1-801a-12b19a3d7b43")},
		{marshal.LexicalUUIDType{}, uuidBytes("f47ac10b-58cc-4372-a567-0e02b2c3d479")},
		{marshal.UTF8Type{}, []byte("it's")},
		{marshal.LongType{}, []byte{}},
	}
	for _, n := range names {
		shown := formatName(n.cmp, n.b)
		lit := shown
		switch {
		case shown == "":
			lit = "0x"
		case n.cmp == marshal.Comparator(marshal.UTF8Type{}):
			lit = "'" + escapeString(shown) + "'"
		}
		stmts, err := Parse("get K.C['k'][" + lit + "]")
		if err != nil {
			t.Errorf("%s name %x shows as %s, which does not parse: %v", shortName(n.cmp), n.b, shown, err)
			continue
		}
		got, err := encodeName(stmts[0].(Get).Path.Names[0], n.cmp)
		if err != nil || !bytes.Equal(got, n.b) {
			t.Errorf("%s name %x shows as %s, which reads back as %x, %v", shortName(n.cmp), n.b, shown, got, err)
		}
	}
}

func uuidBytes(s string) []byte {
	u := uuid.MustParse(s)
	return u[:]
}
