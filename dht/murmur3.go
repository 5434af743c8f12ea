package dht

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"
)

// Murmur3Partitioner is the partitioner of Cassandra 1.2 and later: the
// token of a key is the first 64 bits of Cassandra's MurmurHash3 x64_128
// of the key bytes with seed 0, as a signed int64, with math.MinInt64
// (the minimum token) moved to math.MaxInt64. Token strings are decimal.
//
// Tokens are 8 bytes, the value big-endian with its sign bit flipped; a
// row key is the token followed by the escaped key.
type Murmur3Partitioner struct{}

const (
	m3TokenLen = 8
	m3Want     = "a decimal integer from -9223372036854775808 to 9223372036854775807"
)

// Name implements Partitioner.
func (Murmur3Partitioner) Name() string { return dhtPackage + "Murmur3Partitioner" }

// Token implements Partitioner.
func (Murmur3Partitioner) Token(key string) Token {
	if key == "" {
		return Token{}
	}
	return appendMurmur3Token(make(Token, 0, m3TokenLen), key)
}

func appendMurmur3Token(dst []byte, key string) []byte {
	h1, _ := cassandraMurmur3(key)
	v := int64(h1)
	if v == math.MinInt64 {
		v = math.MaxInt64
	}
	return appendInt64Token(dst, v)
}

func appendInt64Token(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(dst, uint64(v)^(1<<63))
}

// int64Token reads an 8-byte token; other lengths, which this package
// never makes, are zero-padded or cut rather than rejected.
func int64Token(t Token) int64 {
	var b [m3TokenLen]byte
	copy(b[:], t)
	return int64(binary.BigEndian.Uint64(b[:]) ^ (1 << 63))
}

// TokenString implements Partitioner.
func (Murmur3Partitioner) TokenString(t Token) string {
	if len(t) == 0 {
		return strconv.FormatInt(math.MinInt64, 10)
	}
	return strconv.FormatInt(int64Token(t), 10)
}

// TokenMapString implements Partitioner; LongToken.toString() is the
// decimal value too.
func (p Murmur3Partitioner) TokenMapString(t Token) string { return p.TokenString(t) }

// ParseToken implements Partitioner.
func (Murmur3Partitioner) ParseToken(s string) (Token, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil, &TokenError{Partitioner: "Murmur3Partitioner", Token: s, Want: m3Want}
	}
	if v == math.MinInt64 {
		return Token{}, nil
	}
	return Token(appendInt64Token(make([]byte, 0, m3TokenLen), v)), nil
}

// RowKey implements Partitioner.
func (Murmur3Partitioner) RowKey(dst []byte, key string) []byte {
	return appendEscaped(appendMurmur3Token(dst, key), key)
}

// DecodeRowKey implements Partitioner.
func (Murmur3Partitioner) DecodeRowKey(enc []byte) (key string, t Token, rest []byte, err error) {
	if len(enc) < m3TokenLen {
		return "", nil, nil, fmt.Errorf("%w: %d bytes, shorter than a token", ErrMalformed, len(enc))
	}
	return decodeKeyAfter(enc, m3TokenLen)
}

// RandomToken implements Partitioner.
func (Murmur3Partitioner) RandomToken() Token {
	v := int64(rand.Uint64())
	if v == math.MinInt64 {
		v = math.MaxInt64
	}
	return Token(appendInt64Token(make([]byte, 0, m3TokenLen), v))
}

// cassandraMurmur3 is MurmurHash3 x64_128 with seed 0 as Cassandra's
// MurmurHash.hash3_x64_128 computes it. It differs from the reference
// algorithm in one place: Cassandra reads the tail bytes (those after the
// last full 16-byte block) as signed Java bytes, so a tail byte >= 0x80 is
// sign-extended before it is shifted into place. Tokens must match
// Cassandra's, so that is reproduced here.
func cassandraMurmur3(key string) (h1, h2 uint64) {
	const (
		c1 = 0x87c37b91114253d5
		c2 = 0x4cf5ad432745937f
	)
	n := len(key)
	nblocks := n / 16
	for i := range nblocks {
		k1 := le64(key[i*16:])
		k2 := le64(key[i*16+8:])

		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1

		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729

		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2

		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}

	tail := key[nblocks*16:]
	// signExtended is Java's (long) of a signed byte.
	signExtended := func(i int) uint64 { return uint64(int64(int8(tail[i]))) }
	var k1, k2 uint64
	for i := len(tail) - 1; i >= 8; i-- {
		k2 ^= signExtended(i) << (8 * (i - 8))
	}
	if len(tail) > 8 {
		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
	}
	for i := min(len(tail), 8) - 1; i >= 0; i-- {
		k1 ^= signExtended(i) << (8 * i)
	}
	if len(tail) > 0 {
		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
	}

	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix64(h1)
	h2 = fmix64(h2)
	h1 += h2
	h2 += h1
	return h1, h2
}

// le64 reads 8 bytes little-endian; the body blocks are read unsigned.
func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
