package dht

import (
	"bytes"
	"crypto/md5"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/spaolacci/murmur3"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/thriftd/thriftd/marshal"
)

// checkPartitioner verifies the Partitioner contract for p over keys (all
// non-empty). cmpToken orders two keys by token, computed without p's
// encoding; the row order must be that, then key bytes. Every partitioner
// runs it.
func checkPartitioner(t *testing.T, p Partitioner, keys []string, cmpToken func(a, b string) int, rng *rand.Rand) {
	t.Helper()
	if tok := p.Token(""); len(tok) != 0 {
		t.Fatalf("%s: Token(\"\") = %x, want the empty minimum token", p.Name(), tok)
	}
	checkTokenRoundTrip(t, p, Token{})
	for range 20 {
		tok := p.RandomToken()
		if len(tok) == 0 {
			t.Fatalf("%s: RandomToken() returned the minimum token", p.Name())
		}
		checkTokenRoundTrip(t, p, tok)
	}

	rows := make([][]byte, len(keys))
	toks := make([]Token, len(keys))
	for i, k := range keys {
		tok := p.Token(k)
		toks[i] = tok
		if len(tok) == 0 {
			t.Fatalf("%s: Token(%q) is the minimum token", p.Name(), k)
		}
		checkTokenRoundTrip(t, p, tok)

		rows[i] = p.RowKey(nil, k)
		if !bytes.HasPrefix(rows[i], tok) {
			t.Fatalf("%s: RowKey(%q) = %x does not begin with its token %x", p.Name(), k, rows[i], tok)
		}
		prefix := randomBytes(rng, 4)
		if got := p.RowKey(slices.Clone(prefix), k); !bytes.Equal(got, append(prefix, rows[i]...)) {
			t.Fatalf("%s: RowKey(%x, %q) = %x, want the prefix then %x", p.Name(), prefix, k, got, rows[i])
		}
		suffix := randomBytes(rng, 8)
		key, gotTok, rest, err := p.DecodeRowKey(append(slices.Clone(rows[i]), suffix...))
		if err != nil || key != k || !bytes.Equal(gotTok, tok) || !bytes.Equal(rest, suffix) {
			t.Fatalf("%s: DecodeRowKey(RowKey(%q)+%x) = %q, %x, %x, %v; want token %x",
				p.Name(), k, suffix, key, gotTok, rest, err, tok)
		}
	}

	for i, a := range keys {
		for j, b := range keys {
			byToken := cmpToken(a, b)
			if got := bytes.Compare(toks[i], toks[j]); got != byToken {
				t.Fatalf("%s: tokens of %q, %q compare %d, want %d", p.Name(), a, b, got, byToken)
			}
			want := byToken
			if want == 0 {
				want = strings.Compare(a, b)
			}
			if got := bytes.Compare(rows[i], rows[j]); got != want {
				t.Fatalf("%s: row keys of %q, %q compare %d, want %d", p.Name(), a, b, got, want)
			}
		}
	}
	for range 20 * len(keys) {
		i, j := rng.IntN(len(keys)), rng.IntN(len(keys))
		if keys[i] == keys[j] {
			continue
		}
		x := append(slices.Clone(rows[i]), randomBytes(rng, 8)...)
		y := append(slices.Clone(rows[j]), randomBytes(rng, 8)...)
		if got, want := bytes.Compare(x, y), bytes.Compare(rows[i], rows[j]); got != want {
			t.Fatalf("%s: row keys of %q, %q with suffixes compare %d, without %d", p.Name(), keys[i], keys[j], got, want)
		}
	}
}

func checkTokenRoundTrip(t *testing.T, p Partitioner, tok Token) {
	t.Helper()
	s := p.TokenString(tok)
	got, err := p.ParseToken(s)
	if err != nil || !bytes.Equal(got, tok) {
		t.Fatalf("%s: ParseToken(TokenString(%x) = %q) = %x, %v", p.Name(), tok, s, got, err)
	}
}

// randomBytes returns up to max random bytes, biased towards the bytes
// the encodings treat specially.
func randomBytes(rng *rand.Rand, max int) []byte {
	b := make([]byte, rng.IntN(max+1))
	for i := range b {
		if rng.IntN(3) == 0 {
			b[i] = []byte{0x00, 0x01, 0x7F, 0x80, 0xFF}[rng.IntN(5)]
		} else {
			b[i] = byte(rng.Uint32())
		}
	}
	return b
}

// testKeys returns distinct non-empty keys: fixed awkward ones (zero
// bytes, non-ASCII, invalid UTF-8, lengths around Murmur3's 16-byte
// blocks, keys that collate alike) and random ones.
func testKeys(rng *rand.Rand) []string {
	keys := []string{
		"a", "b", "ab", "A", "-a", "a-", "a b", "ab ", "0", "10", "9",
		"\x00", "\x00\x00", "a\x00", "a\x00b", "\xff", "\xff\x00", "\x80",
		"é", "e\u0301", "\u00ad", "\u00ada", "中文", "\U0001F600", "\uE000",
		"\xc3\x28", "\xed\xa0\x80",
		strings.Repeat("k", 15), strings.Repeat("k", 16), strings.Repeat("k", 17),
		strings.Repeat("\xfe", 31), strings.Repeat("\xfe", 33),
	}
	runes := []rune{'a', 'B', '-', ' ', '.', '0', 'é', '\u0301', 0, 0xFFFD, '中', 0x1F600,
		0xD7FF, 0xE000, 0xF8FF, 0xFFFF, 0x10000, 0x10FFFF}
	for range 120 {
		var k string
		if rng.IntN(2) == 0 {
			k = string(randomBytes(rng, 40))
		} else {
			r := make([]rune, rng.IntN(8))
			for i := range r {
				r[i] = runes[rng.IntN(len(runes))]
			}
			k = string(r)
		}
		if k != "" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// md5Token is RandomPartitioner's token computed with math/big, as Java's
// abs(new BigInteger(md5)) does.
func md5Token(key string) *big.Int {
	sum := md5.Sum([]byte(key))
	v := new(big.Int).SetBytes(sum[:])
	if sum[0]&0x80 != 0 {
		v.Sub(v, new(big.Int).Lsh(big.NewInt(1), 128))
	}
	return v.Abs(v)
}

func TestPartitionerContract(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	keys := testKeys(rng)
	coll := collate.New(language.Make("en-US-u-ka-posix-ks-level4"))
	collationKeys := map[string][]byte{}
	var buf collate.Buffer
	for _, k := range keys {
		collationKeys[k] = slices.Clone(coll.KeyFromString(&buf, k))
		buf.Reset()
	}
	md5Tokens := map[string]*big.Int{}
	for _, k := range keys {
		md5Tokens[k] = md5Token(k)
	}
	cases := []struct {
		p        Partitioner
		cmpToken func(a, b string) int
	}{
		{RandomPartitioner{}, func(a, b string) int { return md5Tokens[a].Cmp(md5Tokens[b]) }},
		// The hash itself is checked against published values in
		// TestMurmur3Vectors; this checks the token encoding's order.
		{Murmur3Partitioner{}, func(a, b string) int {
			ha, _ := cassandraMurmur3(a)
			hb, _ := cassandraMurmur3(b)
			return cmpInt64(normalize(int64(ha)), normalize(int64(hb)))
		}},
		{OrderPreservingPartitioner{}, cmpUTF16},
		{ByteOrderedPartitioner{}, strings.Compare},
		{&CollatingOrderPreservingPartitioner{}, func(a, b string) int {
			return bytes.Compare(collationKeys[a], collationKeys[b])
		}},
	}
	// Keys reach OrderPreservingPartitioner as valid UTF-8 (the handler
	// decodes them as Java did), and only there is Java's order defined.
	validKeys := slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return !utf8.ValidString(k) })
	for _, tc := range cases {
		t.Run(tc.p.Name(), func(t *testing.T) {
			ks := keys
			if _, ok := tc.p.(OrderPreservingPartitioner); ok {
				ks = validKeys
			}
			checkPartitioner(t, tc.p, ks, tc.cmpToken, rng)
		})
	}
}

// cmpUTF16 is Java's String.compareTo: the strings' UTF-16 code units
// compared in order, a proper prefix first.
func cmpUTF16(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

// randomJavaKey returns a valid UTF-8 key drawn mostly from the ranges
// where UTF-8 and UTF-16 order disagree.
func randomJavaKey(rng *rand.Rand) string {
	ranges := [][2]rune{
		{0x20, 0x7F}, {0x80, 0x7FF}, {0x800, 0xD7FF}, {0xE000, 0xFFFF}, {0xE000, 0xE0FF},
		{0xFF00, 0xFFFF}, {0x10000, 0x10FFFF}, {0x10000, 0x100FF}, {0x1F000, 0x1FFFF}, {0x10FF00, 0x10FFFF},
	}
	r := make([]rune, rng.IntN(6))
	for i := range r {
		span := ranges[rng.IntN(len(ranges))]
		r[i] = span[0] + rng.Int32N(span[1]-span[0]+1)
	}
	return string(r)
}

// TestOrderPreservingJavaOrder checks OrderPreservingPartitioner's order
// against Java's String.compareTo over random keys with supplementary
// characters and characters from U+E000 to U+FFFF, and that its token
// strings give the keys back.
func TestOrderPreservingJavaOrder(t *testing.T) {
	p := OrderPreservingPartitioner{}
	rng := rand.New(rand.NewPCG(13, 14))
	keys := make([]string, 3000)
	for i := range keys {
		keys[i] = randomJavaKey(rng)
		// Share prefixes so that many comparisons are decided deep inside.
		if i > 0 && rng.IntN(3) == 0 {
			prev := []rune(keys[rng.IntN(i)])
			keys[i] = string(prev[:rng.IntN(len(prev)+1)]) + keys[i]
		}
	}
	disagree := 0
	for i := 1; i < len(keys); i++ {
		for _, j := range []int{i - 1, rng.IntN(i)} {
			a, b := keys[i], keys[j]
			want := cmpUTF16(a, b)
			if got := bytes.Compare(p.Token(a), p.Token(b)); got != want {
				t.Fatalf("tokens of %+q, %+q compare %d; Java's String.compareTo gives %d", a, b, got, want)
			}
			if a != "" && b != "" {
				if got := bytes.Compare(p.RowKey(nil, a), p.RowKey(nil, b)); got != want {
					t.Fatalf("row keys of %+q, %+q compare %d; Java's String.compareTo gives %d", a, b, got, want)
				}
			}
			if want != strings.Compare(a, b) {
				disagree++
			}
		}
		if got := p.TokenString(p.Token(keys[i])); got != keys[i] {
			t.Fatalf("TokenString(Token(%+q)) = %+q", keys[i], got)
		}
	}
	// The test means something only if UTF-8 byte order got many of
	// these pairs wrong.
	if disagree < 100 {
		t.Fatalf("only %d pairs order differently as UTF-8 bytes; the keys miss the ranges that matter", disagree)
	}

	// Sorting by row key gives Java's order.
	sorted := slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return k == "" })
	slices.SortFunc(sorted, func(a, b string) int { return bytes.Compare(p.RowKey(nil, a), p.RowKey(nil, b)) })
	if !slices.IsSortedFunc(sorted, cmpUTF16) {
		t.Fatal("keys sorted by row key are not in Java's order")
	}
}

// TestOrderPreservingEncodingKept checks that keys without characters
// from U+E000 up keep the encoding of row key version 1, the escaped
// bytes, and that UpgradeRowKey turns version 1 into what RowKey writes.
func TestOrderPreservingEncodingKept(t *testing.T) {
	p := OrderPreservingPartitioner{}
	if RowKeyVersion(p) != 2 || RowKeyVersion(ByteOrderedPartitioner{}) != 1 || RowKeyVersion(RandomPartitioner{}) != 1 {
		t.Fatalf("row key versions: OPP %d, BOP %d, RP %d", RowKeyVersion(p), RowKeyVersion(ByteOrderedPartitioner{}), RowKeyVersion(RandomPartitioner{}))
	}
	rng := rand.New(rand.NewPCG(15, 16))
	for range 2000 {
		k := randomJavaKey(rng)
		if k == "" {
			continue
		}
		v1 := appendEscaped(nil, k)
		plain := true
		for _, r := range k {
			plain = plain && r < 0xE000
		}
		if plain && !bytes.Equal(p.RowKey(nil, k), v1) {
			t.Fatalf("row key of %+q changed: %x, was %x", k, p.RowKey(nil, k), v1)
		}
		suffix := randomBytes(rng, 6)
		out, rest, changed, err := p.UpgradeRowKey([]byte("pre"), append(slices.Clone(v1), suffix...), 1)
		if err != nil || !bytes.Equal(out, append([]byte("pre"), p.RowKey(nil, k)...)) || !bytes.Equal(rest, suffix) || changed == plain {
			t.Fatalf("UpgradeRowKey(v1 of %+q) = %x, %x, %v, %v; want %x, %x, changed %v", k, out, rest, changed, err, p.RowKey(nil, k), suffix, !plain)
		}
		out, rest, changed, err = p.UpgradeRowKey(nil, p.RowKey(nil, k), 2)
		if err != nil || !bytes.Equal(out, p.RowKey(nil, k)) || len(rest) != 0 || changed {
			t.Fatalf("UpgradeRowKey(v2 of %+q) = %x, %x, %v, %v", k, out, rest, changed, err)
		}
	}
	for _, from := range []int{0, 3} {
		if _, _, _, err := p.UpgradeRowKey(nil, p.RowKey(nil, "k"), from); !errors.Is(err, ErrMalformed) {
			t.Errorf("UpgradeRowKey from version %d: %v, want ErrMalformed", from, err)
		}
	}
	// Any bytes round-trip, valid UTF-8 or not.
	for range 2000 {
		k := string(randomBytes(rng, 12)) + "\xee\xef\xf0\xf4\xf5"[rng.IntN(5):]
		key, _, rest, err := p.DecodeRowKey(p.RowKey(nil, k))
		if err != nil || key != k || len(rest) != 0 {
			t.Fatalf("DecodeRowKey(RowKey(%x)) = %x, %x, %v", k, key, rest, err)
		}
	}
}

func normalize(v int64) int64 {
	if v == math.MinInt64 {
		return math.MaxInt64
	}
	return v
}

func cmpInt64(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func TestRandomPartitionerTokens(t *testing.T) {
	p := RandomPartitioner{}
	// Values the DataStax drivers' MD5Token tests expect for these keys.
	for key, want := range map[string]string{
		"123":                 "42767516990368493138776584305024125808",
		"9223372036854775807": "28528976619278518853815276204542453639",
	} {
		if got := p.TokenString(p.Token(key)); got != want {
			t.Errorf("token of %q = %s, want %s", key, got, want)
		}
	}
	// Against math/big for many keys, half of them with a negative MD5.
	negative := 0
	rng := rand.New(rand.NewPCG(7, 8))
	for _, k := range testKeys(rng) {
		if sum := md5.Sum([]byte(k)); sum[0]&0x80 != 0 {
			negative++
		}
		if got, want := p.TokenString(p.Token(k)), md5Token(k).String(); got != want {
			t.Errorf("token of %q = %s, want %s", k, got, want)
		}
	}
	if negative == 0 {
		t.Fatal("no key had a negative MD5; abs() went untested")
	}
	if got := p.TokenString(nil); got != "-1" {
		t.Errorf("minimum token string = %q, want -1", got)
	}
	if got := p.TokenMapString(p.Token("123")); got != "42767516990368493138776584305024125808" {
		t.Errorf("token map string = %q", got)
	}
	two127 := new(big.Int).Lsh(big.NewInt(1), 127).String()
	for _, s := range []string{"-1", "0", "1", two127, "170141183460469231731687303715884105727"} {
		if _, err := p.ParseToken(s); err != nil {
			t.Errorf("ParseToken(%q) = %v", s, err)
		}
	}
	if tok, _ := p.ParseToken(two127); p.TokenString(tok) != two127 {
		t.Errorf("2^127 does not round-trip: %x", tok)
	}
}

func TestMurmur3Vectors(t *testing.T) {
	// Tokens of Cassandra's Murmur3Partitioner as published in the test
	// suites of the DataStax drivers. Several have tail bytes >= 0x80,
	// where Cassandra's hash departs from reference MurmurHash3.
	tests := []struct {
		key  string
		want int64
	}{
		{"123", -7468325962851647638},
		{strings.Repeat("\x00\xff\x10\xfa\x99", 10), 5837342703291459765},
		{strings.Repeat("\xfe", 8), -8927430733708461935},
		{strings.Repeat("\x10", 8), 1446172840243228796},
		{"9223372036854775807", 7162290910810015547},
		{"\x01\x02\x03\x04\x05\x06\a\b\t\n\v\f\r\x0E\x0F\x10", -5563837382979743776},
		{"\x02\x03\x04\x05\x06\a\b\t\n\v\f\r\x0E\x0F\x10\x11", -1513403162740402161},
		{"\x03\x04\x05\x06\a\b\t\n\v\f\r\x0E\x0F\x10\x11\x12", -495360443712684655},
		{"\x04\x05\x06\a\b\t\n\v\f\r\x0E\x0F\x10\x11\x12\x13", 1734091135765407943},
		{"\x05\x06\a\b\t\n\v\f\r\x0E\x0F\x10\x11\x12\x13\x14", -3199412112042527988},
		{"\x06\a\b\t\n\v\f\r\x0E\x0F\x10\x11\x12\x13\x14\x15", -6316563938475080831},
		{"\a\b\t\n\v\f\r\x0E\x0F\x10\x11\x12\x13\x14\x15\x16", 8228893370679682632},
		{strings.Repeat("\x00", 16), 5457549051747178710},
		{strings.Repeat("\xff", 16), -2824192546314762522},
		{strings.Repeat("\xfe", 16), -833317529301936754},
		{"\x00\x01\x02\x03" + strings.Repeat("\xff", 12), 6463632673159404390},
		{strings.Repeat("\xfe", 17), -1672437813826982685},
		{"\xfe\xfe\xfe\xfe", 4566408979886474012},
		{"\x00\x00\x00\x00", -3485513579396041028},
		{"\x00\x01\x7f\x7f", 6573459401642635627},
		{"\x00\xff\xff\xff", 123573637386978882},
		{"\xff\x01\x02\x03", -2839127690952877842},
		{"\xe2\xe7", -8582699461035929883},
		{"\xe2\xe7\xe2\xe7\xe2\xe7\x01", 2222373981930033306},
	}
	p := Murmur3Partitioner{}
	for _, tt := range tests {
		want := strconv.FormatInt(tt.want, 10)
		if got := p.TokenString(p.Token(tt.key)); got != want {
			t.Errorf("token of %x = %s, want %s", tt.key, got, want)
		}
		if got := p.TokenMapString(p.Token(tt.key)); got != want {
			t.Errorf("token map string of %x = %s, want %s", tt.key, got, want)
		}
	}
}

// TestMurmur3MatchesReference checks the hash against an independent
// MurmurHash3 where Cassandra's variant agrees with it: keys whose tail
// bytes are all below 0x80.
func TestMurmur3MatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	differs := 0
	for range 2000 {
		b := randomBytes(rng, 50)
		h1, h2 := cassandraMurmur3(string(b))
		r1, r2 := murmur3.Sum128(b)
		asciiTail := true
		for _, c := range b[len(b)/16*16:] {
			asciiTail = asciiTail && c < 0x80
		}
		if asciiTail && (h1 != r1 || h2 != r2) {
			t.Fatalf("hash of %x = %x %x, reference %x %x", b, h1, h2, r1, r2)
		}
		if !asciiTail && h1 != r1 {
			differs++
		}
	}
	if differs == 0 {
		t.Error("no key with a high tail byte hashed differently from reference MurmurHash3")
	}
}

func TestMurmur3Tokens(t *testing.T) {
	p := Murmur3Partitioner{}
	if got := p.TokenString(nil); got != "-9223372036854775808" {
		t.Errorf("minimum token string = %q", got)
	}
	if tok, err := p.ParseToken("-9223372036854775808"); err != nil || len(tok) != 0 {
		t.Errorf("ParseToken(min) = %x, %v; want the minimum token", tok, err)
	}
	order := []string{"-9223372036854775807", "-1", "0", "1", "9223372036854775807"}
	prev := Token{}
	for _, s := range order {
		tok, err := p.ParseToken(s)
		if err != nil || bytes.Compare(prev, tok) >= 0 {
			t.Errorf("ParseToken(%s) = %x, %v; want a token after %x", s, tok, err, prev)
		}
		prev = tok
	}
}

func TestOrderPreservingTokens(t *testing.T) {
	opp, bop := OrderPreservingPartitioner{}, ByteOrderedPartitioner{}
	for _, k := range []string{"key", "a\x00b", "é"} {
		if got := opp.TokenString(opp.Token(k)); got != k {
			t.Errorf("OPP token string of %q = %q", k, got)
		}
		if got := opp.TokenMapString(opp.Token(k)); got != k {
			t.Errorf("OPP token map string of %q = %q", k, got)
		}
		// Row keys share marshal.BytesType's encoding.
		if got, want := opp.RowKey(nil, k), (marshal.BytesType{}).Encode(nil, []byte(k)); !bytes.Equal(got, want) {
			t.Errorf("OPP row key of %q = %x, BytesType encodes %x", k, got, want)
		}
	}
	if got := bop.TokenString(bop.Token("a\x00\xff")); got != "6100ff" {
		t.Errorf("BOP token string = %q, want 6100ff", got)
	}
	if got := bop.TokenMapString(bop.Token("ab")); got != "Token(bytes[6162])" {
		t.Errorf("BOP token map string = %q", got)
	}
	if tok, err := bop.ParseToken("6100FF"); err != nil || !bytes.Equal(tok, bop.Token("a\x00\xff")) {
		t.Errorf("ParseToken(6100FF) = %x, %v", tok, err)
	}
	for _, p := range []Partitioner{opp, bop, &CollatingOrderPreservingPartitioner{}} {
		if got := p.TokenString(nil); got != "" {
			t.Errorf("%s: minimum token string = %q", p.Name(), got)
		}
		if tok, err := p.ParseToken(""); err != nil || len(tok) != 0 {
			t.Errorf("%s: ParseToken(\"\") = %x, %v", p.Name(), tok, err)
		}
	}
	// Java's UTF-16 order: U+1F600 (surrogates D83D DE00) before U+E000,
	// where UTF-8 bytes put it after. ByteOrderedPartitioner keeps bytes.
	if bytes.Compare(opp.Token("\U0001F600"), opp.Token("\uE000")) >= 0 {
		t.Error("OPP does not order keys as Java's String.compareTo")
	}
	if bytes.Compare(bop.Token("\uE000"), bop.Token("\U0001F600")) >= 0 {
		t.Error("BOP does not order keys as bytes")
	}
	if got := opp.TokenString(opp.Token("\U0001F600\uE000")); got != "\U0001F600\uE000" {
		t.Errorf("OPP token string = %+q", got)
	}
}

func TestCollatingOrder(t *testing.T) {
	p := &CollatingOrderPreservingPartitioner{}
	// The order 0.6 showed for these keys (spec section 7):
	// 0, 1, 10 ... 19, 2, 20 ... 99, a, -a, b, -b.
	var want []string
	for i := range 10 {
		want = append(want, strconv.Itoa(i))
		if i == 0 {
			continue
		}
		for j := range 10 {
			want = append(want, strconv.Itoa(i*10+j))
		}
	}
	want = append(want, "a", "-a", "b", "-b")
	keys := slices.Clone(want)
	rand.New(rand.NewPCG(11, 12)).Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	slices.SortFunc(keys, func(a, b string) int { return bytes.Compare(p.RowKey(nil, a), p.RowKey(nil, b)) })
	if !slices.Equal(keys, want) {
		t.Errorf("collated order\n got %v\nwant %v", keys, want)
	}

	// Other properties of en-US collation that Java shared.
	for _, pair := range [][2]string{
		{"a", "A"}, {"A", "b"}, {"e", "é"}, {"é", "f"}, {"9", "a"}, {"ab", "Ac"},
	} {
		if bytes.Compare(p.Token(pair[0]), p.Token(pair[1])) >= 0 {
			t.Errorf("%q does not collate before %q", pair[0], pair[1])
		}
	}

	// Canonically equivalent keys share a collation key but stay two rows,
	// ordered by their bytes.
	nfc, nfd := "\u00e9", "e\u0301"
	if !bytes.Equal(p.Token(nfc), p.Token(nfd)) {
		t.Errorf("%q and %q have different tokens", nfc, nfd)
	}
	if bytes.Compare(p.RowKey(nil, nfd), p.RowKey(nil, nfc)) >= 0 {
		t.Errorf("row key of %q does not sort before that of %q", nfd, nfc)
	}

	tok := p.Token("a")
	if got := p.TokenMapString(tok); got != "Token(bytes["+p.TokenString(tok)+"])" {
		t.Errorf("token map string = %q", got)
	}
	if s := p.TokenString(tok); len(s)%2 != 0 || strings.Trim(s, "0123456789abcdef") != "" {
		t.Errorf("token string %q is not lowercase hex", s)
	}
}

func TestCollatingConcurrent(t *testing.T) {
	p := &CollatingOrderPreservingPartitioner{}
	want := p.Token("concurrent key")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				if got := p.Token("concurrent key"); !bytes.Equal(got, want) {
					t.Errorf("token %x, want %x", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestParseTokenErrors(t *testing.T) {
	tests := []struct {
		p    Partitioner
		s    string
		want string
	}{
		{RandomPartitioner{}, "abc", "Invalid token for RandomPartitioner: 'abc' (want -1 or a decimal integer from 0 to 2^127)"},
		{RandomPartitioner{}, "", "Invalid token for RandomPartitioner: '' (want -1 or a decimal integer from 0 to 2^127)"},
		{RandomPartitioner{}, "-2", "Invalid token for RandomPartitioner: '-2' (want -1 or a decimal integer from 0 to 2^127)"},
		{RandomPartitioner{}, "170141183460469231731687303715884105729", "Invalid token for RandomPartitioner: '170141183460469231731687303715884105729' (want -1 or a decimal integer from 0 to 2^127)"},
		{RandomPartitioner{}, "1.5", "Invalid token for RandomPartitioner: '1.5' (want -1 or a decimal integer from 0 to 2^127)"},
		{RandomPartitioner{}, " 1", "Invalid token for RandomPartitioner: ' 1' (want -1 or a decimal integer from 0 to 2^127)"},
		{Murmur3Partitioner{}, "9223372036854775808", "Invalid token for Murmur3Partitioner: '9223372036854775808' (want a decimal integer from -9223372036854775808 to 9223372036854775807)"},
		{Murmur3Partitioner{}, "0x10", "Invalid token for Murmur3Partitioner: '0x10' (want a decimal integer from -9223372036854775808 to 9223372036854775807)"},
		{ByteOrderedPartitioner{}, "abc", "Invalid token for ByteOrderedPartitioner: 'abc' (want an even number of hexadecimal digits)"},
		{&CollatingOrderPreservingPartitioner{}, "0g", "Invalid token for CollatingOrderPreservingPartitioner: '0g' (want an even number of hexadecimal digits)"},
		{&CollatingOrderPreservingPartitioner{}, "005", "Invalid token for CollatingOrderPreservingPartitioner: '005' (want an even number of hexadecimal digits)"},
		{RandomPartitioner{}, strings.Repeat("9", 150), "Invalid token for RandomPartitioner: '" + strings.Repeat("9", 100) + "...' (want -1 or a decimal integer from 0 to 2^127)"},
	}
	for _, tt := range tests {
		tok, err := tt.p.ParseToken(tt.s)
		var te *TokenError
		if !errors.As(err, &te) || err.Error() != tt.want {
			t.Errorf("%s: ParseToken(%q) = %x, %v; want %q", tt.p.Name(), tt.s, tok, err, tt.want)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, name := range []string{"RandomPartitioner", "OrderPreservingPartitioner", "ByteOrderedPartitioner",
		"CollatingOrderPreservingPartitioner", "Murmur3Partitioner"} {
		for _, class := range []string{name, "org.apache.cassandra.dht." + name} {
			p, err := Lookup(class)
			if err != nil || p.Name() != "org.apache.cassandra.dht."+name {
				t.Errorf("Lookup(%q) = %v, %v", class, p, err)
			}
		}
	}
	for class, want := range map[string]string{
		"Foo":                     "unknown partitioner class org.apache.cassandra.dht.Foo",
		"com.example.Partitioner": "unknown partitioner class com.example.Partitioner",
		"randompartitioner":       "unknown partitioner class org.apache.cassandra.dht.randompartitioner",
	} {
		if p, err := Lookup(class); err == nil || err.Error() != want {
			t.Errorf("Lookup(%q) = %v, %v; want error %q", class, p, err, want)
		}
	}
}

func TestDecodeRowKeyMalformed(t *testing.T) {
	ps := all()
	for _, p := range ps {
		for _, enc := range [][]byte{nil, {0}, {0, 1}, {0, 2}, []byte("abc"), make([]byte, 17), append(make([]byte, 16), 0, 1)} {
			if key, tok, rest, err := p.DecodeRowKey(enc); !errors.Is(err, ErrMalformed) {
				t.Errorf("%s: DecodeRowKey(%x) = %q, %x, %x, %v; want ErrMalformed", p.Name(), enc, key, tok, rest, err)
			}
		}
	}
}

func all() []Partitioner {
	return []Partitioner{RandomPartitioner{}, Murmur3Partitioner{}, OrderPreservingPartitioner{},
		ByteOrderedPartitioner{}, &CollatingOrderPreservingPartitioner{}}
}

func FuzzDecodeRowKey(f *testing.F) {
	for i, p := range all() {
		f.Add(uint8(i), p.RowKey(nil, "key\x00with zero"))
		f.Add(uint8(i), append(p.RowKey(nil, "é"), 0, 1, 2))
	}
	f.Add(uint8(0), []byte{0, 0xFF})
	f.Fuzz(func(t *testing.T, which uint8, enc []byte) {
		ps := all()
		p := ps[int(which)%len(ps)]
		key, tok, rest, err := p.DecodeRowKey(enc)
		if err != nil {
			return
		}
		used := enc[:len(enc)-len(rest)]
		if !bytes.HasPrefix(used, tok) {
			t.Fatalf("%s: DecodeRowKey(%x) token %x is not where it read it", p.Name(), enc, tok)
		}
		// The bytes after the token re-encode from the key, unless the
		// token is the whole row key.
		if after := used[len(tok):]; len(after) > 0 {
			if want := appendEscaped(nil, key); !bytes.Equal(after, want) {
				t.Fatalf("%s: DecodeRowKey(%x) key %q re-encodes to %x, read %x", p.Name(), enc, key, want, after)
			}
		} else if !bytes.Equal(used, p.RowKey(nil, key)) {
			t.Fatalf("%s: DecodeRowKey(%x) key %q re-encodes to %x", p.Name(), enc, key, p.RowKey(nil, key))
		}
		_ = p.TokenString(tok)
		_ = p.TokenMapString(tok)
	})
}

func BenchmarkRowKey(b *testing.B) {
	buf := make([]byte, 0, 128)
	for _, p := range all() {
		b.Run(p.Name()[len("org.apache.cassandra.dht."):], func(b *testing.B) {
			for b.Loop() {
				buf = p.RowKey(buf[:0], "user:1234567890")
			}
		})
	}
}
