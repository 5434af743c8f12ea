package marshal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/google/uuid"
)

// checkComparator verifies the Comparator contract for c over valid, a
// sample of names that pass c.Validate (the empty name is added here).
// Every comparator runs it.
func checkComparator(t *testing.T, c Comparator, valid [][]byte, rng *rand.Rand) {
	t.Helper()
	names := append([][]byte{nil, {}}, valid...)
	for i, n := range names {
		if i < 2 && c.Name() == inetAddressType {
			continue // 1.2 rejects the empty inet; it still sorts first
		}
		if err := c.Validate(n); err != nil {
			t.Fatalf("%s: sample %x is invalid: %v", c.Name(), n, err)
		}
	}

	// Empty first, and reflexivity.
	for _, n := range names {
		if got := c.Compare(n, n); got != 0 {
			t.Errorf("%s: Compare(%x, itself) = %d", c.Name(), n, got)
		}
		if len(n) == 0 {
			continue
		}
		if got := c.Compare(nil, n); got != -1 {
			t.Errorf("%s: Compare(empty, %x) = %d, want -1", c.Name(), n, got)
		}
		if got := c.Compare(n, []byte{}); got != 1 {
			t.Errorf("%s: Compare(%x, empty) = %d, want 1", c.Name(), n, got)
		}
	}

	// Antisymmetry, result range, and encoded order over all pairs.
	enc := make([][]byte, len(names))
	for i, n := range names {
		enc[i] = c.Encode(nil, n)
	}
	for i, a := range names {
		for j, b := range names {
			ab, ba := c.Compare(a, b), c.Compare(b, a)
			if ab < -1 || ab > 1 {
				t.Fatalf("%s: Compare(%x, %x) = %d, not in -1..1", c.Name(), a, b, ab)
			}
			if ab != -ba {
				t.Fatalf("%s: Compare(%x, %x) = %d but Compare(%x, %x) = %d", c.Name(), a, b, ab, b, a, ba)
			}
			// Names that compare equal with different bytes (several
			// spellings of one value) get encodings ordered by their bytes.
			got := bytes.Compare(enc[i], enc[j])
			if got != ab && (ab != 0 || bytes.Equal(a, b)) {
				t.Fatalf("%s: encodings of %x, %x compare %d, names compare %d", c.Name(), a, b, got, ab)
			}
			if ab == 0 && !bytes.Equal(a, b) && got == 0 {
				t.Fatalf("%s: names %x and %x share an encoding", c.Name(), a, b)
			}
		}
	}

	// Transitivity over random triples.
	for range 20 * len(names) {
		a, b, d := names[rng.IntN(len(names))], names[rng.IntN(len(names))], names[rng.IntN(len(names))]
		if c.Compare(a, b) <= 0 && c.Compare(b, d) <= 0 && c.Compare(a, d) > 0 {
			t.Fatalf("%s: %x <= %x <= %x but %x > %x", c.Name(), a, b, d, a, d)
		}
	}

	// Round trip and self-delimitation with random suffixes, appending to a
	// non-empty dst.
	for i, n := range names {
		prefix := randomBytes(rng, 3)
		got := c.Encode(slices.Clone(prefix), n)
		if !bytes.HasPrefix(got, prefix) || !bytes.Equal(got[len(prefix):], enc[i]) {
			t.Fatalf("%s: Encode(%x, %x) = %x, want the prefix then %x", c.Name(), prefix, n, got, enc[i])
		}
		suffix := randomBytes(rng, 8)
		name, rest, err := c.Decode(append(slices.Clone(enc[i]), suffix...))
		if err != nil || !bytes.Equal(name, n) || !bytes.Equal(rest, suffix) {
			t.Fatalf("%s: Decode(Encode(%x)+%x) = %x, %x, %v", c.Name(), n, suffix, name, rest, err)
		}
	}
	for range 20 * len(names) {
		i, j := rng.IntN(len(names)), rng.IntN(len(names))
		want := c.Compare(names[i], names[j])
		if want == 0 {
			continue
		}
		x := append(slices.Clone(enc[i]), randomBytes(rng, 8)...)
		y := append(slices.Clone(enc[j]), randomBytes(rng, 8)...)
		if got := bytes.Compare(x, y); got != want {
			t.Fatalf("%s: with suffixes %x and %x compare %d, names compare %d", c.Name(), x, y, got, want)
		}
	}

	// Sorting by encoding gives the comparator's order.
	byName := slices.Clone(names)
	slices.SortStableFunc(byName, c.Compare)
	byEnc := slices.Clone(enc)
	slices.SortFunc(byEnc, bytes.Compare)
	for i := range byEnc {
		name, _, err := c.Decode(byEnc[i])
		if err != nil || c.Compare(name, byName[i]) != 0 {
			t.Fatalf("%s: position %d: by encoding %x, by name %x", c.Name(), i, name, byName[i])
		}
	}
}

// randomBytes returns up to max random bytes, biased towards the bytes
// the encodings treat specially.
func randomBytes(rng *rand.Rand, max int) []byte {
	b := make([]byte, rng.IntN(max+1))
	for i := range b {
		switch rng.IntN(4) {
		case 0:
			b[i] = []byte{0x00, 0x01, 0x7F, 0x80, 0xFF}[rng.IntN(5)]
		default:
			b[i] = byte(rng.Uint32())
		}
	}
	return b
}

func genBytes(rng *rand.Rand) [][]byte {
	out := [][]byte{{0}, {0, 0}, {0, 1}, {0, 0xFF}, {1}, {0xFF}, {0xFF, 0}, {0x80}}
	for range 150 {
		out = append(out, randomBytes(rng, 12))
	}
	return out
}

func genUTF8(rng *rand.Rand) [][]byte {
	runes := []rune{0, 1, 'a', 'b', 'z', 0x7F, 0x80, 0xE9, 0x7FF, 0x800, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF}
	out := [][]byte{[]byte("a"), []byte("a\x00"), []byte("é"), []byte("\U0001F600")}
	for range 150 {
		var b []byte
		for range rng.IntN(6) {
			r := runes[rng.IntN(len(runes))]
			if rng.IntN(2) == 0 {
				r = rune(rng.IntN(0x110000))
				if !utf8.ValidRune(r) {
					r = 'x'
				}
			}
			b = utf8.AppendRune(b, r)
		}
		out = append(out, b)
	}
	return out
}

func genLongs(rng *rand.Rand) [][]byte {
	vals := []int64{math.MinInt64, math.MinInt64 + 1, -256, -255, -1, 0, 1, 255, 256, math.MaxInt64 - 1, math.MaxInt64}
	for range 150 {
		vals = append(vals, int64(rng.Uint64())>>rng.IntN(64))
	}
	out := make([][]byte, len(vals))
	for i, v := range vals {
		out[i] = binary.BigEndian.AppendUint64(nil, uint64(v))
	}
	return out
}

func genLexicalUUIDs(rng *rand.Rand) [][]byte {
	out := [][]byte{make([]byte, 16), bytes.Repeat([]byte{0xFF}, 16), bytes.Repeat([]byte{0x80}, 16), bytes.Repeat([]byte{0x7F}, 16)}
	for range 150 {
		u := make([]byte, 16)
		for i := range u {
			u[i] = byte(rng.Uint32())
		}
		// Share the high half now and then so the low half decides.
		if rng.IntN(4) == 0 {
			copy(u, out[rng.IntN(len(out))][:8])
		}
		out = append(out, u)
	}
	return out
}

// v1UUID builds a version 1 UUID from a 60-bit timestamp and 8 bytes of
// clock sequence and node.
func v1UUID(ts uint64, tail []byte) []byte {
	u := make([]byte, 16)
	binary.BigEndian.PutUint32(u[0:], uint32(ts))
	binary.BigEndian.PutUint16(u[4:], uint16(ts>>32))
	binary.BigEndian.PutUint16(u[6:], uint16(ts>>48)&0x0FFF|0x1000)
	copy(u[8:], tail)
	return u
}

func genTimeUUIDs(t *testing.T, rng *rand.Rand) [][]byte {
	var out [][]byte
	for range 5 {
		u, err := uuid.NewUUID()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, u[:])
	}
	for range 150 {
		ts := rng.Uint64() >> 4 >> rng.IntN(60)
		if rng.IntN(4) == 0 && len(out) > 0 {
			// Same timestamp as an earlier sample: the bytes break the tie.
			ts = timestamp(out[rng.IntN(len(out))])
		}
		tail := make([]byte, 8)
		for i := range tail {
			tail[i] = byte(rng.Uint32())
		}
		out = append(out, v1UUID(ts, tail))
	}
	return out
}

// timestamp reads the 60-bit time of a version 1 UUID through the uuid
// package, independently of the comparator's own field shuffling.
func timestamp(u []byte) uint64 {
	return uint64(uuid.UUID(u).Time())
}

func TestComparatorContract(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		c     Comparator
		valid [][]byte
	}{
		{BytesType{}, genBytes(rng)},
		{AsciiType{}, genBytes(rng)},
		{UTF8Type{}, genUTF8(rng)},
		{LongType{}, genLongs(rng)},
		{LexicalUUIDType{}, genLexicalUUIDs(rng)},
		{TimeUUIDType{}, genTimeUUIDs(t, rng)},
	}
	for _, tc := range cases {
		t.Run(tc.c.Name(), func(t *testing.T) {
			checkComparator(t, tc.c, tc.valid, rng)
		})
	}
}

// TestCompareAgainstReference checks each ordering against one derived
// straight from the spec, with no shared code.
func TestCompareAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cmpInt := func(x, y int64) int {
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	cmpUint := func(x, y uint64) int {
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	cases := []struct {
		c     Comparator
		valid [][]byte
		ref   func(a, b []byte) int
	}{
		{UTF8Type{}, genUTF8(rng), func(a, b []byte) int {
			// Code point order.
			ra, rb := []rune(string(a)), []rune(string(b))
			return slices.Compare(ra, rb)
		}},
		{LongType{}, genLongs(rng), func(a, b []byte) int {
			return cmpInt(int64(binary.BigEndian.Uint64(a)), int64(binary.BigEndian.Uint64(b)))
		}},
		{LexicalUUIDType{}, genLexicalUUIDs(rng), func(a, b []byte) int {
			if c := cmpInt(int64(binary.BigEndian.Uint64(a)), int64(binary.BigEndian.Uint64(b))); c != 0 {
				return c
			}
			return cmpInt(int64(binary.BigEndian.Uint64(a[8:])), int64(binary.BigEndian.Uint64(b[8:])))
		}},
		{TimeUUIDType{}, genTimeUUIDs(t, rng), func(a, b []byte) int {
			if c := cmpUint(timestamp(a), timestamp(b)); c != 0 {
				return c
			}
			return bytes.Compare(a, b)
		}},
	}
	for _, tc := range cases {
		for _, a := range tc.valid {
			for _, b := range tc.valid {
				if got, want := tc.c.Compare(a, b), tc.ref(a, b); got != want {
					t.Fatalf("%s: Compare(%x, %x) = %d, want %d", tc.c.Name(), a, b, got, want)
				}
			}
		}
	}
}

func TestCompareExamples(t *testing.T) {
	long := func(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
	hex16 := func(first, ninth byte) []byte {
		u := make([]byte, 16)
		u[0], u[8] = first, ninth
		return u
	}
	// TimeUUIDs whose byte order is the opposite of their time order:
	// earlier has a larger time_low but a smaller time_hi.
	earlier := []byte{0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0x10, 0x00, 0, 0, 0, 0, 0, 0, 0, 0}
	later := []byte{0x00, 0x00, 0x00, 0x00, 0, 0, 0x10, 0x01, 0, 0, 0, 0, 0, 0, 0, 0}
	// Same time; the clock sequence bytes break the tie.
	tieLow := []byte{1, 2, 3, 4, 5, 6, 0x11, 8, 0x00, 0, 0, 0, 0, 0, 0, 0}
	tieHigh := []byte{1, 2, 3, 4, 5, 6, 0x11, 8, 0x80, 0, 0, 0, 0, 0, 0, 0}
	tests := []struct {
		c    Comparator
		a, b []byte
		want int
	}{
		{BytesType{}, []byte("a"), []byte("ab"), -1},
		{BytesType{}, []byte{0x7F}, []byte{0x80}, -1},
		{BytesType{}, []byte{0xFF}, []byte{0x00, 0x00}, 1},
		{AsciiType{}, []byte("B"), []byte("a"), -1},
		{UTF8Type{}, []byte("z"), []byte("é"), -1},
		// 0.6's UTF8Type compared bytes, not UTF-16 strings: the
		// supplementary character sorts after U+E000-U+FFFF.
		{UTF8Type{}, []byte("\uFFFF"), []byte("\U00010000"), -1},
		{UTF8Type{}, []byte("\uE000"), []byte("\U0001F600"), -1},
		{LongType{}, long(-1), long(1), -1},
		{LongType{}, long(math.MinInt64), long(-1), -1},
		{LongType{}, long(math.MaxInt64), long(0), 1},
		{LongType{}, long(255), long(256), -1},
		{LongType{}, nil, long(math.MinInt64), -1},
		{LexicalUUIDType{}, hex16(0x80, 0), hex16(0x00, 0), -1},
		{LexicalUUIDType{}, hex16(0x00, 0x80), hex16(0x00, 0x00), -1},
		{LexicalUUIDType{}, hex16(0x7F, 0x00), hex16(0xFF, 0x7F), 1},
		{LexicalUUIDType{}, []byte{}, hex16(0x80, 0x80), -1},
		{TimeUUIDType{}, earlier, later, -1},
		{TimeUUIDType{}, tieLow, tieHigh, -1},
		{TimeUUIDType{}, later, nil, 1},
	}
	for _, tt := range tests {
		if got := tt.c.Compare(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: Compare(%x, %x) = %d, want %d", tt.c.Name(), tt.a, tt.b, got, tt.want)
		}
		if got := tt.c.Compare(tt.b, tt.a); got != -tt.want {
			t.Errorf("%s: Compare(%x, %x) = %d, want %d", tt.c.Name(), tt.b, tt.a, got, -tt.want)
		}
	}
	if bytes.Compare(earlier, later) <= 0 {
		t.Fatal("TimeUUID example does not disagree with byte order")
	}
}

func TestValidate(t *testing.T) {
	v1 := v1UUID(0x123456789ABCDEF, []byte{0x80, 1, 2, 3, 4, 5, 6, 7})
	v4 := slices.Clone(v1)
	v4[6] = v4[6]&0x0F | 0x40
	tests := []struct {
		c    Comparator
		name []byte
		want string // "" means valid
	}{
		{BytesType{}, []byte{0xC3, 0x28}, ""},
		{AsciiType{}, []byte{0xC3, 0x28, 0xFF}, ""},
		{UTF8Type{}, []byte("héllo \U0001F600"), ""},
		{UTF8Type{}, []byte{0xC3, 0x28}, "invalid UTF8 bytes [-61, 40]"},
		{UTF8Type{}, []byte{0x61, 0xFF, 0x7F, 0x80}, "invalid UTF8 bytes [97, -1, 127, -128]"},
		{UTF8Type{}, []byte{0xED, 0xA0, 0x80}, "invalid UTF8 bytes [-19, -96, -128]"}, // a surrogate
		{UTF8Type{}, []byte{0xC0, 0x80}, "invalid UTF8 bytes [-64, -128]"},            // overlong NUL
		{UTF8Type{}, []byte{0xE2, 0x82}, "invalid UTF8 bytes [-30, -126]"},            // truncated
		{LongType{}, make([]byte, 8), ""},
		{LongType{}, make([]byte, 7), "A long is exactly 8 bytes"},
		{LongType{}, make([]byte, 9), "A long is exactly 8 bytes"},
		{LongType{}, []byte("1"), "A long is exactly 8 bytes"},
		{LexicalUUIDType{}, v4, ""},
		{LexicalUUIDType{}, make([]byte, 15), "UUIDs must be exactly 16 bytes"},
		{LexicalUUIDType{}, make([]byte, 17), "UUIDs must be exactly 16 bytes"},
		{TimeUUIDType{}, v1, ""},
		{TimeUUIDType{}, make([]byte, 15), "TimeUUID should be 16 or 0 bytes (15)"},
		{TimeUUIDType{}, make([]byte, 1), "TimeUUID should be 16 or 0 bytes (1)"},
		{TimeUUIDType{}, v4, "Invalid version for TimeUUID type."},
		{TimeUUIDType{}, make([]byte, 16), "Invalid version for TimeUUID type."},
	}
	for _, tt := range tests {
		err := tt.c.Validate(tt.name)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: Validate(%x) = %v, want nil", tt.c.Name(), tt.name, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want):
			t.Errorf("%s: Validate(%x) = %v, want %q", tt.c.Name(), tt.name, err, tt.want)
		case tt.want != "":
			var me MarshalError
			if !errors.As(err, &me) {
				t.Errorf("%s: Validate(%x) returned %T, want MarshalError", tt.c.Name(), tt.name, err)
			}
		}
	}
	for _, c := range all() {
		for _, empty := range [][]byte{nil, {}} {
			if err := c.Validate(empty); err != nil {
				t.Errorf("%s: Validate(empty) = %v", c.Name(), err)
			}
		}
	}
}

func all() []Comparator {
	return []Comparator{BytesType{}, AsciiType{}, UTF8Type{}, LongType{}, LexicalUUIDType{}, TimeUUIDType{}}
}

func TestLookup(t *testing.T) {
	for _, c := range all() {
		short := c.Name()[len("org.apache.cassandra.db.marshal."):]
		for _, class := range []string{short, c.Name()} {
			got, err := Lookup(class)
			if err != nil || got.Name() != c.Name() {
				t.Errorf("Lookup(%q) = %v, %v; want %s", class, got, err, c.Name())
			}
		}
	}
	if got := (UTF8Type{}).Name(); got != "org.apache.cassandra.db.marshal.UTF8Type" {
		t.Errorf("UTF8Type name = %q", got)
	}
	for class, want := range map[string]string{
		"FooType":                          "unknown comparator class org.apache.cassandra.db.marshal.FooType",
		"com.example.BytesType":            "unknown comparator class com.example.BytesType",
		"org.apache.cassandra.db.marshal.": "unknown comparator class org.apache.cassandra.db.marshal.",
		"bytestype":                        "unknown comparator class org.apache.cassandra.db.marshal.bytestype",
		"":                                 "unknown comparator class org.apache.cassandra.db.marshal.",
	} {
		if c, err := Lookup(class); err == nil || err.Error() != want {
			t.Errorf("Lookup(%q) = %v, %v; want error %q", class, c, err, want)
		}
	}
}

func TestReverse(t *testing.T) {
	long := func(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }
	rev := Reverse(LongType{})
	tests := []struct {
		a, b []byte
		want int
	}{
		{nil, nil, 0},
		{nil, long(5), -1},
		{long(5), []byte{}, 1},
		{long(5), long(-5), -1},
		{long(-5), long(5), 1},
		{long(7), long(7), 0},
	}
	for _, tt := range tests {
		if got := rev(tt.a, tt.b); got != tt.want {
			t.Errorf("Reverse(LongType)(%x, %x) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestDecodeMalformed(t *testing.T) {
	tests := []struct {
		c   Comparator
		enc []byte
	}{
		{BytesType{}, nil},
		{BytesType{}, []byte("abc")},
		{BytesType{}, []byte("abc\x00")},
		{BytesType{}, []byte("a\x00\x02")},
		{UTF8Type{}, []byte("a\x00\xFFb\x00")},
		{LongType{}, nil},
		{LongType{}, []byte{0x03, 0, 0, 0, 0, 0, 0, 0, 0}},
		{LongType{}, []byte{0x02, 0, 0}},
		{LongType{}, []byte{0x02, 0x80, 0, 0, 0, 0, 0, 0, 0}}, // tag says non-negative
		{LongType{}, []byte{0x01, 0x00, 0, 0, 0, 0, 0, 0, 0}}, // tag says negative
		{LexicalUUIDType{}, []byte{0x01, 1, 2, 3}},
		{LexicalUUIDType{}, []byte{0x02}},
		{TimeUUIDType{}, append([]byte{0x01}, make([]byte, 23)...)},
		{TimeUUIDType{}, append([]byte{0x01, 1}, make([]byte, 23)...)}, // timestamp key disagrees
	}
	for _, tt := range tests {
		if name, rest, err := tt.c.Decode(tt.enc); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: Decode(%x) = %x, %x, %v; want ErrMalformed", tt.c.Name(), tt.enc, name, rest, err)
		}
	}
}

// TestEncodeInvalidDoesNotPanic feeds Encode names Validate rejects.
func TestEncodeInvalidDoesNotPanic(t *testing.T) {
	for _, c := range all() {
		for n := range 20 {
			name := bytes.Repeat([]byte{0x9C}, n)
			enc := c.Encode(nil, name)
			if _, _, err := c.Decode(enc); err != nil {
				t.Errorf("%s: Decode(Encode(%x)) = %v", c.Name(), name, err)
			}
		}
	}
}

func TestDecodeAliases(t *testing.T) {
	enc := (BytesType{}).Encode(nil, []byte("plain"))
	name, _, err := (BytesType{}).Decode(enc)
	if err != nil || &name[0] != &enc[0] {
		t.Errorf("Decode copied a name without zero bytes")
	}
	// A caller appending to the returned name must not overwrite enc.
	_ = append(name, 'X')
	if !bytes.Equal(enc, (BytesType{}).Encode(nil, []byte("plain"))) {
		t.Errorf("appending to a decoded name changed the encoding: %x", enc)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(uint8(0), []byte("a\x00\xFFb\x00\x01rest"))
	f.Add(uint8(3), []byte{0x01, 0x80, 0, 0, 0, 0, 0, 0, 0})
	f.Add(uint8(4), []byte{0x01, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0})
	f.Add(uint8(5), (TimeUUIDType{}).Encode(nil, v1UUID(42, []byte("abcdefgh"))))
	f.Add(uint8(5), []byte{0x01})
	f.Fuzz(func(t *testing.T, which uint8, enc []byte) {
		cs := all()
		c := cs[int(which)%len(cs)]
		name, rest, err := c.Decode(enc)
		if err != nil {
			return
		}
		if len(rest) > len(enc) {
			t.Fatalf("%s: Decode(%x) rest %x is longer than its input", c.Name(), enc, rest)
		}
		// What decodes re-encodes to the bytes it came from.
		if got, used := c.Encode(nil, name), enc[:len(enc)-len(rest)]; !bytes.Equal(got, used) {
			t.Fatalf("%s: Decode(%x) = %x but that encodes to %x", c.Name(), used, name, got)
		}
	})
}

func BenchmarkEncodeDecode(b *testing.B) {
	name := []byte("a column name with no zero bytes")
	buf := make([]byte, 0, 64)
	for b.Loop() {
		buf = (UTF8Type{}).Encode(buf[:0], name)
		if _, _, err := (UTF8Type{}).Decode(buf); err != nil {
			b.Fatal(err)
		}
	}
}
