package dht

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
)

// OrderPreservingPartitioner makes the key its own token, so rows are in
// key order: 0.6's String.compareTo, which compares UTF-16 code units.
// Token strings are the keys themselves; the minimum token is "".
//
// UTF-16 order is UTF-8 byte order except that a supplementary character
// (U+10000 and above, a surrogate pair in UTF-16) sorts before U+E000 to
// U+FFFF. A token is therefore the key with the lead bytes of those
// characters exchanged (see javaOrder), then escaped; a key without
// characters from U+E000 up is encoded as its plain bytes. The token
// identifies the key, so a row key is just the token.
//
// Row keys of encoding version 1 (before thriftd ordered keys as Java did)
// were the escaped UTF-8 bytes; UpgradeRowKey rewrites them.
type OrderPreservingPartitioner struct{}

// Name implements Partitioner.
func (OrderPreservingPartitioner) Name() string { return dhtPackage + "OrderPreservingPartitioner" }

// Token implements Partitioner.
func (OrderPreservingPartitioner) Token(key string) Token { return javaOrderToken(key) }

// TokenString implements Partitioner: the key.
func (OrderPreservingPartitioner) TokenString(t Token) string { return string(javaOrderKey(t)) }

// TokenMapString implements Partitioner; StringToken.toString() is the key.
func (OrderPreservingPartitioner) TokenMapString(t Token) string { return string(javaOrderKey(t)) }

// ParseToken implements Partitioner. Every string is a token.
func (OrderPreservingPartitioner) ParseToken(s string) (Token, error) { return javaOrderToken(s), nil }

// RowKey implements Partitioner.
func (OrderPreservingPartitioner) RowKey(dst []byte, key string) []byte {
	return appendJavaOrder(dst, key)
}

// DecodeRowKey implements Partitioner.
func (OrderPreservingPartitioner) DecodeRowKey(enc []byte) (key string, t Token, rest []byte, err error) {
	k, t, rest, err := decodeKeyToken(enc)
	if err != nil {
		return "", nil, nil, err
	}
	return string(fromJavaOrder([]byte(k))), t, rest, nil
}

// oppRowKeyVersion is the version of OrderPreservingPartitioner's RowKey
// encoding: 1 was the escaped UTF-8 bytes, 2 the Java order of javaOrder.
const oppRowKeyVersion = 2

// RowKeyVersion implements Upgrader.
func (OrderPreservingPartitioner) RowKeyVersion() int { return oppRowKeyVersion }

// UpgradeRowKey implements Upgrader: a version 1 row key holds the key's
// plain bytes, which version 2 reorders.
func (OrderPreservingPartitioner) UpgradeRowKey(dst, enc []byte, from int) (out, rest []byte, changed bool, err error) {
	if from < 1 || from > oppRowKeyVersion {
		return nil, nil, false, fmt.Errorf("%w: unknown row key version %d", ErrMalformed, from)
	}
	k, _, rest, err := decodeKeyToken(enc)
	if err != nil {
		return nil, nil, false, err
	}
	if from == oppRowKeyVersion || !needsJavaOrder(k) {
		return append(dst, enc[:len(enc)-len(rest)]...), rest, false, nil
	}
	return appendJavaOrder(dst, k), rest, true, nil
}

// randomKeyChars are the characters 0.6's OrderPreservingPartitioner drew
// random tokens from.
const randomKeyChars = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// RandomToken implements Partitioner: 16 random letters and digits.
func (OrderPreservingPartitioner) RandomToken() Token {
	var b [16]byte
	for i := range b {
		b[i] = randomKeyChars[rand.IntN(len(randomKeyChars))]
	}
	return javaOrderToken(string(b[:]))
}

// ByteOrderedPartitioner is 0.7's name for the order-preserving
// partitioner that treats keys as bytes: rows are in unsigned byte order
// of their keys, token strings are the key bytes in lowercase hex, and
// the minimum token is "".
//
// Its tokens and row keys are encoded as OrderPreservingPartitioner's.
type ByteOrderedPartitioner struct{}

// Name implements Partitioner.
func (ByteOrderedPartitioner) Name() string { return dhtPackage + "ByteOrderedPartitioner" }

// Token implements Partitioner.
func (ByteOrderedPartitioner) Token(key string) Token { return keyToken(key) }

// TokenString implements Partitioner: the key bytes in lowercase hex.
func (ByteOrderedPartitioner) TokenString(t Token) string { return hex.EncodeToString(keyOfToken(t)) }

// TokenMapString implements Partitioner, as BytesToken.toString() does.
func (ByteOrderedPartitioner) TokenMapString(t Token) string {
	return "Token(bytes[" + hex.EncodeToString(keyOfToken(t)) + "])"
}

// ParseToken implements Partitioner. It accepts an even number of hex
// digits in either case.
func (ByteOrderedPartitioner) ParseToken(s string) (Token, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, &TokenError{Partitioner: "ByteOrderedPartitioner", Token: s, Want: hexWant}
	}
	return keyToken(b), nil
}

// RowKey implements Partitioner.
func (ByteOrderedPartitioner) RowKey(dst []byte, key string) []byte {
	return appendEscaped(dst, key)
}

// DecodeRowKey implements Partitioner.
func (ByteOrderedPartitioner) DecodeRowKey(enc []byte) (key string, t Token, rest []byte, err error) {
	return decodeKeyToken(enc)
}

// RandomToken implements Partitioner: 16 random bytes.
func (ByteOrderedPartitioner) RandomToken() Token { return randomBytesToken() }

const hexWant = "an even number of hexadecimal digits"

// keyToken is the token of a partitioner whose tokens are escaped bytes.
func keyToken[T string | []byte](key T) Token {
	if len(key) == 0 {
		return Token{}
	}
	return appendEscaped(make(Token, 0, len(key)+escLen), key)
}

// The lead bytes of UTF-8 sequences, by the characters they start:
// 0xEE and 0xEF start U+E000-U+FFFF, 0xF0-0xF4 start U+10000-U+10FFFF.
// No other byte of valid UTF-8 lies in 0xEE-0xF4.
const (
	leadE000 = 0xEE // first lead byte of U+E000-U+FFFF
	leadSupp = 0xF0 // first lead byte of the supplementary planes
	leadLast = 0xF4 // last lead byte of valid UTF-8
)

// javaOrder maps a byte of a key so that the bytes of UTF-8 keys compare
// as Java compared the strings (UTF-16 code units): the supplementary
// lead bytes 0xF0-0xF4 move down to 0xEE-0xF2 and the lead bytes of
// U+E000-U+FFFF, 0xEE and 0xEF, move up to 0xF3 and 0xF4. Every other byte
// is itself. Within each group the order is kept, and continuation bytes
// (0x80-0xBF) are untouched, so code point order holds inside the BMP and
// inside the supplementary planes, while every supplementary character
// now sorts between U+D7FF and U+E000, as its surrogates did in Java.
//
// It is a permutation of the byte values, so any byte string (keys reach
// here as valid UTF-8, since the handler decodes them as Java did)
// encodes and decodes exactly.
func javaOrder(b byte) byte {
	switch {
	case b < leadE000 || b > leadLast:
		return b
	case b >= leadSupp:
		return b - (leadSupp - leadE000)
	default:
		return b + (leadLast - 0xEF)
	}
}

// fromJavaOrder inverts javaOrder in place and returns b.
func fromJavaOrder(b []byte) []byte {
	for i, c := range b {
		switch {
		case c < leadE000 || c > leadLast:
		case c >= 0xF3:
			b[i] = c - (leadLast - 0xEF)
		default:
			b[i] = c + (leadSupp - leadE000)
		}
	}
	return b
}

// needsJavaOrder reports whether javaOrder changes any byte of key.
func needsJavaOrder[T string | []byte](key T) bool {
	for i := 0; i < len(key); i++ {
		if key[i] >= leadE000 && key[i] <= leadLast {
			return true
		}
	}
	return false
}

// appendJavaOrder appends the escaped javaOrder encoding of key to dst.
func appendJavaOrder[T string | []byte](dst []byte, key T) []byte {
	if !needsJavaOrder(key) {
		return appendEscaped(dst, key)
	}
	m := make([]byte, len(key))
	for i := 0; i < len(key); i++ {
		m[i] = javaOrder(key[i])
	}
	return appendEscaped(dst, m)
}

// JavaOrderBytes returns key's bytes mapped so that their unsigned byte
// order is Java's String order (UTF-16 code units), the order of
// OrderPreservingPartitioner's tokens, without the token's escaping: the
// result is as long as key. A store that orders keys by their bytes (a
// ByteOrdered Cassandra cluster) stores these for OrderPreservingPartitioner.
func JavaOrderBytes(key string) []byte {
	b := []byte(key)
	for i, c := range b {
		b[i] = javaOrder(c)
	}
	return b
}

// KeyOfJavaOrderBytes inverts JavaOrderBytes.
func KeyOfJavaOrderBytes(b []byte) string { return string(fromJavaOrder(bytes.Clone(b))) }

// javaOrderToken is OrderPreservingPartitioner's token of key.
func javaOrderToken(key string) Token {
	if len(key) == 0 {
		return Token{}
	}
	return appendJavaOrder(make(Token, 0, len(key)+escLen), key)
}

// javaOrderKey inverts javaOrderToken. Tokens this package did not make
// are returned as they are rather than rejected.
func javaOrderKey(t Token) []byte {
	if len(t) == 0 {
		return nil
	}
	k, rest, err := decodeEscaped(t)
	if err != nil || len(rest) != 0 {
		return t
	}
	return fromJavaOrder(bytes.Clone(k))
}

// keyOfToken inverts keyToken. Tokens this package did not make are
// returned as they are rather than rejected.
func keyOfToken(t Token) []byte {
	if len(t) == 0 {
		return nil
	}
	k, rest, err := decodeEscaped(t)
	if err != nil || len(rest) != 0 {
		return t
	}
	return k
}

// decodeKeyToken reads a row key that is its own token.
func decodeKeyToken(enc []byte) (key string, t Token, rest []byte, err error) {
	k, rest, err := decodeEscaped(enc)
	if err != nil {
		return "", nil, nil, err
	}
	if len(k) == 0 {
		return "", nil, nil, fmt.Errorf("%w: empty key", ErrMalformed)
	}
	n := len(enc) - len(rest)
	return string(k), Token(enc[:n:n]), rest, nil
}

func randomBytesToken() Token {
	var b [16]byte
	for i := 0; i < len(b); i += 8 {
		v := rand.Uint64()
		for j := range 8 {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return keyToken(b[:])
}
