package marshal

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// dynName builds a DynamicCompositeType name: each part a type spelling
// (one character: an alias; longer: a class name) and its value.
func dynName(parts ...string) []byte {
	var out []byte
	for i := 0; i < len(parts); i += 2 {
		spelling, v := parts[i], parts[i+1]
		if len(spelling) == 1 {
			out = append(out, 0x80, spelling[0])
		} else {
			out = binary.BigEndian.AppendUint16(out, uint16(len(spelling)))
			out = append(out, spelling...)
		}
		out = binary.BigEndian.AppendUint16(out, uint16(len(v)))
		out = append(append(out, v...), 0)
	}
	return out
}

// The spellings of one DynamicCompositeType name share the prefix of
// their encodings, which no other name's encoding starts with, and which
// PrefixEnd bounds.
func TestSpellingsShareAPrefix(t *testing.T) {
	c, err := Parse("DynamicCompositeType(a=>AsciiType,b=>BytesType,s=>UTF8Type)")
	if err != nil {
		t.Fatal(err)
	}
	spellings := [][]byte{
		dynName("a", "x", "b", "y"),
		dynName("AsciiType", "x", "b", "y"),
		dynName("org.apache.cassandra.db.marshal.AsciiType", "x", "BytesType", "y"),
	}
	others := [][]byte{dynName("a", "x"), dynName("a", "x", "b", "z"), dynName("a", "w", "b", "y"), dynName("s", "x", "b", "y"), dynName("a", "x", "b", "y", "b", "")}
	prefix, ok := Spellings(c, nil, spellings[0])
	if !ok {
		t.Fatal("DynamicCompositeType has no spellings")
	}
	end := PrefixEnd(prefix)
	for _, n := range spellings {
		if err := c.Validate(n); err != nil {
			t.Fatalf("%q: %v", n, err)
		}
		if p, _ := Spellings(c, nil, n); !bytes.Equal(p, prefix) {
			t.Errorf("%q: prefix %x, want %x", n, p, prefix)
		}
		enc := c.Encode(nil, n)
		if p, ok := SpellingsOf(c, enc); !ok || !bytes.Equal(p, prefix) {
			t.Errorf("%q: prefix of its encoding %x, want %x", n, p, prefix)
		}
		if !bytes.HasPrefix(enc, prefix) || bytes.Compare(enc, end) >= 0 {
			t.Errorf("%q: encoding %x outside [%x, %x)", n, enc, prefix, end)
		}
	}
	for _, n := range others {
		enc := c.Encode(nil, n)
		if bytes.HasPrefix(enc, prefix) {
			t.Errorf("%q, another name, has the spellings' prefix", n)
		}
		if in := bytes.Compare(enc, prefix) >= 0 && bytes.Compare(enc, end) < 0; in {
			t.Errorf("%q, another name, lies among the spellings", n)
		}
	}
	for _, name := range []string{"BytesType", "ReversedType(DynamicCompositeType(a=>AsciiType))"} {
		other, err := Parse(name)
		if err != nil {
			t.Fatal(err)
		}
		if HasSpellings(other) {
			t.Errorf("%s has spellings", name)
		}
	}
	if PrefixEnd([]byte{0xff, 0xff}) != nil || !bytes.Equal(PrefixEnd([]byte{1, 0xff}), []byte{2}) {
		t.Error("PrefixEnd")
	}
}
