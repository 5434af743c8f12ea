package marshal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

const inetAddressType = marshalPackage + "InetAddressType"

func mustParse(t testing.TB, name string) Comparator {
	t.Helper()
	c, err := Parse(name)
	if err != nil {
		t.Fatalf("Parse(%q): %v", name, err)
	}
	return c
}

func genASCII(rng *rand.Rand) [][]byte {
	out := [][]byte{{0}, {0x7F}, []byte("a"), []byte("ab")}
	for range 100 {
		b := randomBytes(rng, 8)
		for i := range b {
			b[i] &= 0x7F
		}
		out = append(out, b)
	}
	return out
}

func genFixed(rng *rand.Rand, width int) [][]byte {
	var out [][]byte
	for _, v := range genLongs(rng) {
		out = append(out, v[8-width:])
	}
	return out
}

func genInet(rng *rand.Rand) [][]byte {
	out := [][]byte{{127, 0, 0, 1}, {0, 0, 0, 0}, {255, 255, 255, 255}, make([]byte, 16)}
	for range 80 {
		b := make([]byte, 4+12*rng.IntN(2))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		out = append(out, b)
	}
	return out
}

func genUUIDs(t *testing.T, rng *rand.Rand) [][]byte {
	out := genTimeUUIDs(t, rng)[:60]
	for range 80 {
		u := make([]byte, 16)
		for i := range u {
			u[i] = byte(rng.Uint32())
		}
		if rng.IntN(2) == 0 {
			u[6] = u[6]&0x0F | 0x40
		}
		out = append(out, u)
	}
	return out
}

func genBooleans() [][]byte {
	return [][]byte{{0}, {1}, {0x7F}, {0x80}, {0xFF}, {2}}
}

func genDoubles(rng *rand.Rand) [][]byte {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 1.5, -1.5, math.Inf(1), math.Inf(-1), math.NaN(),
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64}
	var out [][]byte
	for _, v := range vals {
		out = append(out, binary.BigEndian.AppendUint64(nil, math.Float64bits(v)))
	}
	// NaNs with other bits: equal to the canonical one.
	out = append(out, binary.BigEndian.AppendUint64(nil, 0x7FF0000000000001), binary.BigEndian.AppendUint64(nil, 0xFFF8000000000000))
	for range 80 {
		out = append(out, binary.BigEndian.AppendUint64(nil, rng.Uint64()))
	}
	return out
}

func genFloats(rng *rand.Rand) [][]byte {
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 2.5, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN())}
	var out [][]byte
	for _, v := range vals {
		out = append(out, binary.BigEndian.AppendUint32(nil, math.Float32bits(v)))
	}
	out = append(out, []byte{0x7F, 0x80, 0, 1}, []byte{0xFF, 0xC0, 0, 0})
	for range 80 {
		out = append(out, binary.BigEndian.AppendUint32(nil, rng.Uint32()))
	}
	return out
}

func genVarints(rng *rand.Rand) [][]byte {
	out := [][]byte{{0}, {0, 0}, {0xFF}, {0xFF, 0xFF}, {0x7F}, {0, 0x80}, {0x80}, {0xFF, 0x7F}, {0xFF, 0x80}, {0, 0, 5}, {5}}
	for range 100 {
		b := randomBytes(rng, 10)
		if len(b) == 0 {
			b = []byte{byte(rng.Uint32())}
		}
		out = append(out, b)
	}
	return out
}

// decimal builds a DecimalType value.
func decimal(scale int32, unscaled int64) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(scale))
	return binary.BigEndian.AppendUint64(b, uint64(unscaled))
}

func decimalBig(scale int32, unscaled *big.Int) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(scale))
	switch unscaled.Sign() {
	case 0:
		return append(b, 0)
	case 1:
		return append(b, append([]byte{0}, unscaled.Bytes()...)...)
	}
	// Two's complement of a negative number, with a sign byte to spare.
	n := len(unscaled.Bytes()) + 1
	m := new(big.Int).Add(unscaled, new(big.Int).Lsh(big.NewInt(1), uint(8*n)))
	return append(b, m.FillBytes(make([]byte, n))...)
}

func genDecimals(rng *rand.Rand) [][]byte {
	out := [][]byte{{1}, {0, 0, 0, 1}, decimal(0, 0), decimal(5, 0), decimal(1, 10), decimal(0, 1), decimal(2, 100),
		decimal(0, -1), decimal(1, -10), decimal(-3, 7), decimal(math.MaxInt32, 1), decimal(math.MinInt32, -1)}
	for range 100 {
		u := big.NewInt(rng.Int64N(2000) - 1000)
		if rng.IntN(4) == 0 {
			u.Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(rng.Int64N(30)), nil))
		}
		out = append(out, decimalBig(int32(rng.IntN(20)-5), u))
	}
	return out
}

// component builds one composite component.
func component(value []byte, eoc byte) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(len(value)))
	return append(append(b, value...), eoc)
}

func longBytes(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// genComposite builds names of 1..len(gens) components, the last one's EOC
// sometimes a slice bound's.
func genComposite(rng *rand.Rand, gens [][][]byte) [][]byte {
	var out [][]byte
	for range 200 {
		n := 1 + rng.IntN(len(gens))
		var name []byte
		for i := range n {
			g := gens[i]
			eoc := byte(0)
			if i == n-1 {
				eoc = []byte{0, 0, 0xFF, 1, 2, 0x80}[rng.IntN(6)]
			}
			name = append(name, component(g[rng.IntN(len(g))], eoc)...)
		}
		out = append(out, name)
	}
	return out
}

// dcComponent builds one DynamicCompositeType component, by alias when
// alias is not 0, else by type name.
func dcComponent(alias byte, typ string, value []byte, eoc byte) []byte {
	var b []byte
	if alias != 0 {
		b = binary.BigEndian.AppendUint16(nil, 0x8000|uint16(alias))
	} else {
		b = binary.BigEndian.AppendUint16(nil, uint16(len(typ)))
		b = append(b, typ...)
	}
	return append(b, component(value, eoc)...)
}

func genDynamic(rng *rand.Rand) [][]byte {
	utf := genUTF8(rng)[:30]
	longs := genLongs(rng)[:30]
	kinds := []struct {
		alias byte
		typ   string
		vals  [][]byte
	}{
		{'s', "", utf}, {0, "UTF8Type", utf}, {0, marshalPackage + "UTF8Type", utf},
		{'l', "", longs}, {0, "LongType", longs}, {'r', "", longs}, {0, "ReversedType(LongType)", longs},
		{'b', "", utf}, {0, "BytesType", utf}, {0, "IntegerType", genVarints(rng)[:20]},
	}
	var out [][]byte
	for range 200 {
		n := 1 + rng.IntN(3)
		var name []byte
		for i := range n {
			k := kinds[rng.IntN(len(kinds))]
			if i > 0 && rng.IntN(2) == 0 {
				k = kinds[0]
			}
			eoc := byte(0)
			if i == n-1 {
				eoc = []byte{0, 0, 0xFF, 1}[rng.IntN(4)]
			}
			name = append(name, dcComponent(k.alias, k.typ, k.vals[rng.IntN(len(k.vals))], eoc)...)
		}
		out = append(out, name)
	}
	return out
}

func TestContract12(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	utf, longs, varints, decimals := genUTF8(rng), genLongs(rng), genVarints(rng), genDecimals(rng)
	cases := []struct {
		name  string
		valid [][]byte
	}{
		{"BytesType", genBytes(rng)},
		{"AsciiType", genASCII(rng)},
		{"UTF8Type", utf},
		{"LongType", longs},
		{"Int32Type", genFixed(rng, 4)},
		{"IntegerType", varints},
		{"DecimalType", decimals},
		{"BooleanType", genBooleans()},
		{"DateType", longs},
		{"TimestampType", longs},
		{"DoubleType", genDoubles(rng)},
		{"FloatType", genFloats(rng)},
		{"InetAddressType", genInet(rng)},
		{"UUIDType", genUUIDs(t, rng)},
		{"LexicalUUIDType", genLexicalUUIDs(rng)},
		{"TimeUUIDType", genTimeUUIDs(t, rng)},
		{"CounterColumnType", longs},
		{"EmptyType", nil},
		{"ReversedType(LongType)", longs},
		{"LongType(reversed=true)", longs},
		{"ReversedType(UTF8Type)", utf},
		{"ReversedType(DecimalType)", decimals},
		{"ReversedType(IntegerType)", varints},
		{"CompositeType(UTF8Type,LongType)", genComposite(rng, [][][]byte{utf[:20], longs[:20]})},
		{"CompositeType(IntegerType, ReversedType(LongType), DecimalType)", genComposite(rng, [][][]byte{varints[:15], longs[:15], decimals[:15]})},
		{"CompositeType(LongType(reversed=true),UTF8Type)", genComposite(rng, [][][]byte{longs[:15], utf[:15]})},
		{"ReversedType(CompositeType(UTF8Type,LongType))", genComposite(rng, [][][]byte{utf[:15], longs[:15]})},
		{"CompositeType(BooleanType,DoubleType)", genComposite(rng, [][][]byte{genBooleans(), genDoubles(rng)[:20]})},
		{"DynamicCompositeType(s=>UTF8Type,l=>LongType,r=>ReversedType(LongType),b=>BytesType)", genDynamic(rng)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkComparator(t, mustParse(t, tc.name), tc.valid, rng)
		})
	}
}

func TestParseNames(t *testing.T) {
	const m = marshalPackage
	tests := []struct{ in, want string }{
		{"UTF8Type", m + "UTF8Type"},
		{m + "LongType", m + "LongType"},
		{"", m + "BytesType"},
		{"  \t", m + "BytesType"},
		{"(UTF8Type)", m + "BytesType"},
		{" UTF8Type garbage", m + "UTF8Type"},
		{"TimestampType", m + "TimestampType"},
		{"CounterColumnType", m + "CounterColumnType"},
		{"UTF8Type(reversed=true)", m + "ReversedType(" + m + "UTF8Type)"},
		{"UTF8Type(reversed)", m + "ReversedType(" + m + "UTF8Type)"},
		{"UTF8Type( reversed = true )", m + "ReversedType(" + m + "UTF8Type)"},
		{"UTF8Type(reversed=false)", m + "UTF8Type"},
		{"UTF8Type(reversed=TRUE)", m + "UTF8Type"},
		{"UTF8Type(foo=bar, reversed=true)", m + "ReversedType(" + m + "UTF8Type)"},
		{"UTF8Type ()", m + "UTF8Type"},
		{"ReversedType(LongType)", m + "ReversedType(" + m + "LongType)"},
		{"CompositeType(UTF8Type,LongType)", m + "CompositeType(" + m + "UTF8Type," + m + "LongType)"},
		{"CompositeType( UTF8Type , LongType )", m + "CompositeType(" + m + "UTF8Type," + m + "LongType)"},
		{"CompositeType(UTF8Type LongType)", m + "CompositeType(" + m + "UTF8Type," + m + "LongType)"},
		{"CompositeType(UTF8Type(reversed=true), LongType(reversed=false))",
			m + "CompositeType(" + m + "ReversedType(" + m + "UTF8Type)," + m + "LongType)"},
		{"org.apache.cassandra.db.marshal.CompositeType(org.apache.cassandra.db.marshal.UTF8Type,org.apache.cassandra.db.marshal.LongType)",
			m + "CompositeType(" + m + "UTF8Type," + m + "LongType)"},
		{"DynamicCompositeType(s=>UTF8Type,b=>BytesType)", m + "DynamicCompositeType(b=>" + m + "BytesType,s=>" + m + "UTF8Type)"},
		{"DynamicCompositeType(a=>AsciiType,q=>UTF8Type,A=>LongType)", m + "DynamicCompositeType(a=>" + m + "AsciiType,q=>" + m + "UTF8Type,A=>" + m + "LongType)"},
		{"DynamicCompositeType", m + "DynamicCompositeType()"},
		{"DynamicCompositeType()", m + "DynamicCompositeType()"},
	}
	for _, tt := range tests {
		c, err := Parse(tt.in)
		if err != nil || c.Name() != tt.want {
			t.Errorf("Parse(%q) = %v, %v; want %s", tt.in, c, err, tt.want)
			continue
		}
		// What a type prints parses back to it.
		if again, err := Parse(c.Name()); err != nil || again.Name() != c.Name() {
			t.Errorf("Parse(%q) = %v, %v; want itself", c.Name(), again, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	const m = marshalPackage
	tests := []struct{ in, want string }{
		{"Foo", "Unable to find abstract-type class 'org.apache.cassandra.db.marshal.Foo'"},
		{"utf8type", "Unable to find abstract-type class 'org.apache.cassandra.db.marshal.utf8type'"},
		{"com.example.Foo", "Unable to find abstract-type class 'com.example.Foo'"},
		{"Foo(reversed=true)", "Unable to find abstract-type class 'org.apache.cassandra.db.marshal.Foo'"},
		{"AbstractType", "Invalid comparator class " + m + "AbstractType: must define a public static instance field or a public static method getInstance(TypeParser)."},
		{"CompositeType", "Invalid definition for comparator " + m + "CompositeType."},
		{"CompositeType()", "Invalid definition for comparator " + m + "CompositeType."},
		{"CompositeType(UTF8Type, Foo)", "Invalid definition for comparator " + m + "CompositeType."},
		{"CompositeType(UTF8Type", "Invalid definition for comparator " + m + "CompositeType."},
		{"CompositeType(UTF8Type,,LongType)", "Invalid definition for comparator " + m + "CompositeType."},
		{"ReversedType", "Invalid definition for comparator " + m + "ReversedType."},
		{"ReversedType(LongType,UTF8Type)", "Invalid definition for comparator " + m + "ReversedType."},
		{"ReversedType(CompositeType(Foo))", "Invalid definition for comparator " + m + "ReversedType."},
		{"DynamicCompositeType(ab=>UTF8Type)", "Invalid definition for comparator " + m + "DynamicCompositeType."},
		{"DynamicCompositeType(a=UTF8Type)", "Invalid definition for comparator " + m + "DynamicCompositeType."},
		{"DynamicCompositeType(a=>", "Invalid definition for comparator " + m + "DynamicCompositeType."},
		{"UTF8Type(", "Syntax error parsing 'UTF8Type(' at char 9: unexpected end of string"},
		{"UTF8Type(reversed=true", "Syntax error parsing 'UTF8Type(reversed=true' at char 22: unexpected end of string"},
		{"UTF8Type(reversed!)", "Syntax error parsing 'UTF8Type(reversed!)' at char 17: unexpected character '!'"},
		{"UTF8Type(reversed", "String index out of range: 17"},
		{"ListType(UTF8Type)", m + "ListType is not supported by this server"},
	}
	for _, tt := range tests {
		c, err := Parse(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q) = %v, %v; want error %q", tt.in, c, err, tt.want)
		}
	}
}

func TestValidate12(t *testing.T) {
	v1 := v1UUID(0x123456789ABCDEF, []byte{0x80, 1, 2, 3, 4, 5, 6, 7})
	v4 := slices.Clone(v1)
	v4[6] = v4[6]&0x0F | 0x40
	cuv := "CompositeType(UTF8Type,LongType)"
	tests := []struct {
		typ  string
		name []byte
		want string // "" means valid
	}{
		{"BytesType", []byte{0xFF}, ""},
		{"AsciiType", []byte("abc"), ""},
		{"AsciiType", []byte{'a', 0xC3, 0x28}, "Invalid byte for ascii: -61"},
		{"UTF8Type", []byte("héllo \U0001F600"), ""},
		{"UTF8Type", []byte{0xC3, 0x28}, "String didn't validate."},
		{"UTF8Type", []byte{0xE2, 0x82}, "String didn't validate."},
		{"UTF8Type", []byte{0xF8, 0x80, 0x80, 0x80}, "String didn't validate."},
		{"UTF8Type", []byte{0xC1, 0xBF}, "String didn't validate."},
		{"UTF8Type", []byte{0xC0, 0x80}, ""},       // modified UTF-8's NUL
		{"UTF8Type", []byte{0xED, 0xA0, 0x80}, ""}, // a surrogate: 1.2 lets it through
		{"UTF8Type", []byte{0xE0, 0x80, 0x80}, "String didn't validate."},
		{"UTF8Type", []byte{0xF0, 0x80, 0x80, 0x80}, "String didn't validate."},
		{"LongType", make([]byte, 8), ""},
		{"LongType", make([]byte, 7), "Expected 8 or 0 byte long (7)"},
		{"CounterColumnType", make([]byte, 9), "Expected 8 or 0 byte long (9)"},
		{"Int32Type", make([]byte, 8), "Expected 4 or 0 byte int (8)"},
		{"DateType", make([]byte, 4), "Expected 8 or 0 byte long for date (4)"},
		{"TimestampType", make([]byte, 1), "Expected 8 or 0 byte long for date (1)"},
		{"DoubleType", make([]byte, 4), "Expected 8 or 0 byte value for a double (4)"},
		{"FloatType", make([]byte, 8), "Expected 4 or 0 byte value for a float (8)"},
		{"BooleanType", make([]byte, 2), "Expected 1 or 0 byte value (2)"},
		{"IntegerType", []byte{0, 0, 0}, ""},
		{"DecimalType", []byte{1}, ""},
		{"InetAddressType", []byte{1, 2, 3}, "Expected 4 or 16 byte inetaddress; got 010203"},
		{"InetAddressType", nil, "Expected 4 or 16 byte inetaddress; got "},
		{"UUIDType", make([]byte, 15), "UUIDs must be exactly 16 bytes"},
		{"UUIDType", v4, ""},
		{"LexicalUUIDType", make([]byte, 17), "LexicalUUID should be 16 or 0 bytes (17)"},
		{"TimeUUIDType", make([]byte, 3), "TimeUUID should be 16 or 0 bytes (3)"},
		{"TimeUUIDType", v4, "Invalid version for TimeUUID type."},
		{"TimeUUIDType", v1, ""},
		{"EmptyType", []byte{0}, "EmptyType only accept empty values"},
		{"ReversedType(LongType)", make([]byte, 3), "Expected 8 or 0 byte long (3)"},
		{cuv, append(component([]byte("a"), 0), component(longBytes(1), 0)...), ""},
		{cuv, component([]byte("a"), 1), ""},
		{cuv, component([]byte("a"), 0xFF), ""},
		{cuv, append(component([]byte("a"), 1), component(longBytes(1), 0)...), "Invalid bytes remaining after an end-of-component at component0"},
		{cuv, []byte{0}, "Not enough bytes to read value size of component 0"},
		{cuv, []byte{0, 5, 'a'}, "Not enough bytes to read value of component 0"},
		{cuv, []byte{0, 1, 'a'}, "Not enough bytes to read the end-of-component byte of component0"},
		{cuv, component([]byte{0xFF}, 0), "String didn't validate."},
		{cuv, append(component([]byte("a"), 0), component([]byte{1}, 0)...), "Expected 8 or 0 byte long (1)"},
		{cuv, slices.Concat(component(nil, 0), component(nil, 0), component(nil, 0)), "Too many bytes for comparator"},
		{"DynamicCompositeType(s=>UTF8Type)", dcComponent('s', "", []byte("x"), 0), ""},
		{"DynamicCompositeType(s=>UTF8Type)", dcComponent(0, "LongType", longBytes(3), 0), ""},
		{"DynamicCompositeType(s=>UTF8Type)", dcComponent(0, "", []byte{0xFF}, 0), ""}, // "" is BytesType
		{"DynamicCompositeType(s=>UTF8Type)", dcComponent('t', "", []byte("x"), 0), "Cannot find comparator for component 0"},
		{"DynamicCompositeType(s=>UTF8Type)", dcComponent(0, "Foo", []byte("x"), 0), "Cannot find comparator for component 0"},
		{"DynamicCompositeType(s=>UTF8Type)", []byte{0x80}, "Not enough bytes to header of the comparator part of component 0"},
		{"DynamicCompositeType(s=>UTF8Type)", []byte{0, 9, 'L'}, "Not enough bytes to read comparator name of component 0"},
		{"DynamicCompositeType(s=>UTF8Type)", dcComponent(0, "LongType", []byte{1}, 0), "Expected 8 or 0 byte long (1)"},
	}
	for _, tt := range tests {
		c := mustParse(t, tt.typ)
		err := c.Validate(tt.name)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: Validate(%x) = %v, want nil", tt.typ, tt.name, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want):
			t.Errorf("%s: Validate(%x) = %v, want %q", tt.typ, tt.name, err, tt.want)
		case tt.want != "":
			var me MarshalError
			if !errors.As(err, &me) {
				t.Errorf("%s: Validate(%x) returned %T, want MarshalError", tt.typ, tt.name, err)
			}
		}
	}
	for name := range simple12 {
		if name == "InetAddressType" {
			continue
		}
		if err := mustParse(t, name).Validate(nil); err != nil {
			t.Errorf("%s: Validate(empty) = %v", name, err)
		}
	}
}

func TestCompare12Examples(t *testing.T) {
	cuv := "CompositeType(UTF8Type,LongType)"
	a0 := component([]byte("a"), 0)
	tests := []struct {
		typ  string
		a, b []byte
		want int
	}{
		// DateType compares unsigned: 1969 after 1970.
		{"DateType", longBytes(-1), longBytes(1), 1},
		{"TimestampType", longBytes(-1), longBytes(1), -1},
		{"LongType", longBytes(-1), longBytes(1), -1},
		{"CounterColumnType", longBytes(-1), longBytes(1), 1},
		{"IntegerType", []byte{0, 0, 5}, []byte{5}, 0},
		{"IntegerType", []byte{0xFF, 0x7F}, []byte{0x80}, -1},
		{"IntegerType", []byte{0x01, 0x00}, []byte{0x7F}, 1},
		{"DecimalType", decimal(1, 10), decimal(0, 1), 0},
		{"DecimalType", decimal(2, 150), decimal(0, 1), 1},
		{"DecimalType", decimal(0, -2), decimal(1, -15), -1},
		{"BooleanType", []byte{0x80}, []byte{0}, -1},
		{"BooleanType", nil, []byte{0}, -1},
		{"DoubleType", binary.BigEndian.AppendUint64(nil, 0x8000000000000000), make([]byte, 8), -1},
		{"DoubleType", binary.BigEndian.AppendUint64(nil, 0x7FF0000000000001), binary.BigEndian.AppendUint64(nil, 0x7FF8000000000000), 0},
		{"ReversedType(LongType)", longBytes(1), longBytes(2), 1},
		{"ReversedType(LongType)", nil, longBytes(2), -1},
		// Slice bounds: EOC -1 before the prefix's names, 1 after them.
		{cuv, component([]byte("a"), 0xFF), a0, -1},
		{cuv, component([]byte("a"), 0xFF), append(slices.Clone(a0), component(longBytes(-5), 0)...), -1},
		{cuv, component([]byte("a"), 1), append(slices.Clone(a0), component(longBytes(5), 0)...), 1},
		{cuv, component([]byte("a"), 1), component([]byte("b"), 0xFF), -1},
		{cuv, a0, append(slices.Clone(a0), component(longBytes(-5), 0)...), -1},
		{cuv, component([]byte("a"), 1), component([]byte("a"), 2), 0},
		{cuv, nil, a0, -1},
		// Components of different types: by simple class name.
		{"DynamicCompositeType(s=>UTF8Type,l=>LongType)", dcComponent('s', "", []byte("a"), 0), dcComponent('l', "", longBytes(1), 0), 1},
		{"DynamicCompositeType(s=>UTF8Type,l=>LongType)", dcComponent('s', "", []byte("a"), 0), dcComponent(0, "UTF8Type", []byte("a"), 0), 0},
		{"DynamicCompositeType(s=>UTF8Type,l=>LongType)", dcComponent(0, "BytesType", []byte("z"), 0), dcComponent('l', "", longBytes(1), 0), -1},
	}
	for _, tt := range tests {
		c := mustParse(t, tt.typ)
		if got := c.Compare(tt.a, tt.b); got != tt.want {
			t.Errorf("%s: Compare(%x, %x) = %d, want %d", tt.typ, tt.a, tt.b, got, tt.want)
		}
		if got := c.Compare(tt.b, tt.a); got != -tt.want {
			t.Errorf("%s: Compare(%x, %x) = %d, want %d", tt.typ, tt.b, tt.a, got, -tt.want)
		}
	}
}

// TestEncodeDecodeAnything12 feeds every 1.2 type's Encode names Validate
// may reject, and its Decode arbitrary bytes: neither may panic, and what
// decodes re-encodes to the bytes it came from.
func TestEncodeDecodeAnything12(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	types := []string{"CompositeType(UTF8Type,LongType)", "DynamicCompositeType(s=>UTF8Type)", "ReversedType(DecimalType)",
		"CompositeType(ReversedType(IntegerType),BooleanType)"}
	for name := range simple12 {
		types = append(types, name)
	}
	for _, name := range types {
		c := mustParse(t, name)
		for range 300 {
			in := randomBytes(rng, 24)
			enc := c.Encode(nil, in)
			if _, _, err := c.Decode(enc); err != nil && c.Validate(in) == nil {
				t.Errorf("%s: Decode(Encode(%x)) = %v", name, in, err)
			}
			for _, b := range [][]byte{in, enc[:rng.IntN(len(enc)+1)]} {
				got, rest, err := c.Decode(b)
				if err != nil {
					if !errors.Is(err, ErrMalformed) {
						t.Errorf("%s: Decode(%x): %v does not wrap ErrMalformed", name, b, err)
					}
					continue
				}
				if used := b[:len(b)-len(rest)]; !bytes.Equal(c.Encode(nil, got), used) {
					t.Errorf("%s: Decode(%x) = %x, which encodes to %x", name, used, got, c.Encode(nil, got))
				}
			}
		}
	}
}

func FuzzDecode12(f *testing.F) {
	f.Add("CompositeType(UTF8Type,LongType)", []byte{1, 0})
	f.Add("ReversedType(DecimalType)", []byte{1, 0xFB})
	f.Add("DynamicCompositeType(s=>UTF8Type)", []byte{0x80, 's', 0, 1, 'a', 0})
	f.Add("DecimalType", []byte{0, 0, 0, 1, 0xFF})
	f.Fuzz(func(t *testing.T, typ string, enc []byte) {
		if len(typ) > 200 || strings.Count(typ, "(") > 8 {
			return
		}
		c, err := Parse(typ)
		if err != nil {
			return
		}
		// Any bytes as a name: none of these may panic, and a name equals
		// itself.
		_ = c.Validate(enc)
		_ = typeString(c, enc)
		if c.Compare(enc, enc) != 0 && c.Validate(enc) == nil {
			t.Fatalf("%s: %x does not equal itself", c.Name(), enc)
		}
		if got, _, err := c.Decode(c.Encode(nil, enc)); err == nil && c.Validate(enc) == nil && !bytes.Equal(got, enc) {
			t.Fatalf("%s: Decode(Encode(%x)) = %x", c.Name(), enc, got)
		}
		name, rest, err := c.Decode(enc)
		if err != nil {
			return
		}
		if got, used := c.Encode(nil, name), enc[:len(enc)-len(rest)]; !bytes.Equal(got, used) {
			t.Fatalf("%s: Decode(%x) = %x but that encodes to %x", c.Name(), used, name, got)
		}
	})
}

func TestString12(t *testing.T) {
	f64 := func(v float64) []byte { return binary.BigEndian.AppendUint64(nil, math.Float64bits(v)) }
	f32 := func(v float32) []byte { return binary.BigEndian.AppendUint32(nil, math.Float32bits(v)) }
	tests := []struct {
		typ  string
		b    []byte
		want string
	}{
		{"BytesType", []byte{0xAB, 0x01}, "ab01"},
		{"UTF8Type", []byte("héllo"), "héllo"},
		{"LongType", longBytes(-42), "-42"},
		{"LongType", nil, ""},
		{"Int32Type", []byte{0xFF, 0xFF, 0xFF, 0xFE}, "-2"},
		{"IntegerType", []byte{0xFF, 0x7F}, "-129"},
		{"IntegerType", nil, "empty"},
		{"DecimalType", decimal(2, 150), "1.50"},
		{"DecimalType", decimal(-2, 15), "1500"},
		{"DecimalType", decimal(-2, 0), "0"},
		{"DecimalType", decimal(5, -3), "-0.00003"},
		{"DecimalType", decimal(0x30000000, 12), "1.2E-805306367"},
		{"DecimalType", decimal(-0x30000000, 1), "1E+805306368"},
		{"BooleanType", []byte{2}, "true"},
		{"BooleanType", nil, "false"},
		{"DoubleType", f64(1), "1.0"},
		{"DoubleType", f64(1e7), "1.0E7"},
		{"DoubleType", f64(1234567.5), "1234567.5"},
		{"DoubleType", f64(0.001), "0.001"},
		{"DoubleType", f64(0.0001), "1.0E-4"},
		{"DoubleType", f64(math.Copysign(0, -1)), "-0.0"},
		{"DoubleType", f64(math.Inf(-1)), "-Infinity"},
		{"FloatType", f32(0.1), "0.1"},
		{"InetAddressType", []byte{10, 0, 0, 1}, "10.0.0.1"},
		{"InetAddressType", append(make([]byte, 15), 1), "0:0:0:0:0:0:0:1"},
		{"InetAddressType", append(make([]byte, 10), 0xFF, 0xFF, 1, 2, 3, 4), "1.2.3.4"},
		{"UUIDType", []byte{0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC, 0xDE, 0xF0, 0, 1, 2, 3, 4, 5, 6, 7}, "12345678-9abc-def0-0001-020304050607"},
		{"DateType", longBytes(0), "1970-01-01 00:00:00+0000"},
		{"CounterColumnType", longBytes(1), "0000000000000001"},
		{"ReversedType(LongType)", longBytes(7), "7"},
		{"CompositeType(UTF8Type,LongType)", append(component([]byte("a:b!"), 0), component(longBytes(5), 0)...), `a\:b!!:5`},
		{"CompositeType(UTF8Type,LongType)", component([]byte("a"), 0xFF), "a:!"},
		{"DynamicCompositeType(s=>UTF8Type)", append(dcComponent('s', "", []byte("x"), 0), dcComponent(0, "LongType", longBytes(2), 1)...), "s@x:LongType@2:!"},
	}
	// DateType prints in the server's time zone, as the real one did.
	defer func(l *time.Location) { time.Local = l }(time.Local)
	time.Local = time.UTC
	for _, tt := range tests {
		if got := typeString(mustParse(t, tt.typ), tt.b); got != tt.want {
			t.Errorf("%s: String(%x) = %q, want %q", tt.typ, tt.b, got, tt.want)
		}
	}
}

// BenchmarkComposite12 measures a CompositeType(UTF8Type,LongType) name:
// Compare of two names, and Encode plus Decode of one.
func BenchmarkComposite12(b *testing.B) {
	c := mustParse(b, "CompositeType(UTF8Type,LongType)")
	x := append(component([]byte("user:1234"), 0), component(longBytes(1700000000), 0)...)
	y := append(component([]byte("user:1234"), 0), component(longBytes(1700000001), 0)...)
	b.Run("Compare", func(b *testing.B) {
		for b.Loop() {
			if c.Compare(x, y) != -1 {
				b.Fatal("order")
			}
		}
	})
	buf := make([]byte, 0, 128)
	b.Run("EncodeDecode", func(b *testing.B) {
		for b.Loop() {
			buf = c.Encode(buf[:0], x)
			if _, _, err := c.Decode(buf); err != nil {
				b.Fatal(err)
			}
		}
	})
}
