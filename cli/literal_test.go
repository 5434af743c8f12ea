package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/thriftd/thriftd/engine/comparator"
)

func TestEncodeName(t *testing.T) {
	u := "550e8400-e29b-41d4-a716-446655440000"
	uBytes := uuid.MustParse(u)
	tu := "27809078-e760-11f1-801a-12b19a3d7b43" // a version 1 UUID
	tuBytes := uuid.MustParse(tu)
	long := func(n int64) []byte { return longBytes(n) }
	tests := []struct {
		lit  Literal
		cmp  comparator.Comparator
		want []byte
		err  string
	}{
		{Literal{Kind: LitString, Text: "first"}, comparator.BytesType{}, []byte("first"), ""},
		{Literal{Kind: LitString, Text: "naïve"}, comparator.UTF8Type{}, []byte("naïve"), ""},
		{Literal{Kind: LitString, Text: "42"}, comparator.LongType{}, long(42), ""},
		{Literal{Kind: LitString, Text: "-9223372036854775808"}, comparator.LongType{}, long(-1 << 63), ""},
		{Literal{Kind: LitNumber, Text: "42"}, comparator.LongType{}, long(42), ""},
		{Literal{Kind: LitNumber, Text: "-1"}, comparator.LongType{}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, ""},
		{Literal{Kind: LitString, Text: "abc"}, comparator.LongType{}, nil, "'abc' is not a number"},
		{Literal{Kind: LitNumber, Text: "42"}, comparator.BytesType{}, nil, "write '42' for text or long(42)"},
		{Literal{Kind: LitFunc, Text: "long", Arg: &Literal{Kind: LitNumber, Text: "7"}}, comparator.BytesType{}, long(7), ""},
		{Literal{Kind: LitString, Text: u}, comparator.LexicalUUIDType{}, uBytes[:], ""},
		{Literal{Kind: LitUUID, Text: u}, comparator.LexicalUUIDType{}, uBytes[:], ""},
		{Literal{Kind: LitUUID, Text: u}, comparator.BytesType{}, uBytes[:], ""},
		{Literal{Kind: LitUUID, Text: u}, comparator.UTF8Type{}, nil, "quote it"},
		{Literal{Kind: LitUUID, Text: tu}, comparator.TimeUUIDType{}, tuBytes[:], ""},
		{Literal{Kind: LitUUID, Text: u}, comparator.TimeUUIDType{}, nil, "Invalid version for TimeUUID type."},
		{Literal{Kind: LitString, Text: "nope"}, comparator.TimeUUIDType{}, nil, "'nope' is not a UUID"},
		{Literal{Kind: LitHex, Text: "00ff"}, comparator.BytesType{}, []byte{0, 0xff}, ""},
		{Literal{Kind: LitHex, Text: "00ff"}, comparator.LongType{}, nil, "A long is exactly 8 bytes"},
		{Literal{Kind: LitHex, Text: "c328"}, comparator.UTF8Type{}, nil, "invalid UTF8 bytes [-61, 40]"},
		{Literal{Kind: LitHex, Text: ""}, comparator.LongType{}, []byte{}, ""},
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
	tu, err := encodeName(Literal{Kind: LitFunc, Text: "timeuuid"}, comparator.TimeUUIDType{})
	if err != nil || len(tu) != 16 || tu[6]>>4 != 1 {
		t.Fatalf("timeuuid() = %x, %v; want a version 1 UUID", tu, err)
	}
	tu2, _ := encodeName(Literal{Kind: LitFunc, Text: "timeuuid"}, comparator.TimeUUIDType{})
	if (comparator.TimeUUIDType{}).Compare(tu, tu2) >= 0 {
		t.Errorf("a second timeuuid() %x does not sort after the first %x", tu2, tu)
	}
	lu, err := encodeName(Literal{Kind: LitFunc, Text: "lexicaluuid"}, comparator.LexicalUUIDType{})
	if err != nil || len(lu) != 16 || lu[6]>>4 != 4 {
		t.Fatalf("lexicaluuid() = %x, %v; want a version 4 UUID", lu, err)
	}
	if _, err := encodeName(Literal{Kind: LitFunc, Text: "lexicaluuid"}, comparator.TimeUUIDType{}); err == nil {
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
		cmp  comparator.Comparator
		in   []byte
		want string
	}{
		{comparator.BytesType{}, []byte("first"), "first"},
		{comparator.BytesType{}, []byte{}, ""},
		{comparator.BytesType{}, []byte{0, 1, 0xff}, "0x0001ff"},
		{comparator.BytesType{}, []byte("two\nlines"), "0x74776f0a6c696e6573"},
		{comparator.UTF8Type{}, []byte("naïve ☃"), "naïve ☃"},
		{comparator.UTF8Type{}, []byte{0xc3, 0x28}, "0xc328"},
		{comparator.AsciiType{}, []byte("plain text"), "plain text"},
		{comparator.LongType{}, longBytes(42), "42"},
		{comparator.LongType{}, longBytes(-7), "-7"},
		{comparator.LongType{}, []byte{1, 2}, "0x0102"},
		{comparator.LexicalUUIDType{}, u[:], "550e8400-e29b-41d4-a716-446655440000"},
		{comparator.TimeUUIDType{}, u[:], "550e8400-e29b-41d4-a716-446655440000"},
		{comparator.TimeUUIDType{}, []byte("short"), "short"},
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
		cmp comparator.Comparator
		b   []byte
	}{
		{comparator.BytesType{}, []byte{0, 1, 0xff}},
		{comparator.LongType{}, longBytes(-123456789)},
		{comparator.TimeUUIDType{}, uuidBytes("27809078-e760-11f1-801a-12b19a3d7b43")},
		{comparator.LexicalUUIDType{}, uuidBytes("f47ac10b-58cc-4372-a567-0e02b2c3d479")},
		{comparator.UTF8Type{}, []byte("it's")},
		{comparator.LongType{}, []byte{}},
	}
	for _, n := range names {
		shown := formatName(n.cmp, n.b)
		lit := shown
		switch {
		case shown == "":
			lit = "0x"
		case n.cmp == comparator.Comparator(comparator.UTF8Type{}):
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
