package partitioner

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
)

// OrderPreservingPartitioner makes the key its own token, so rows are in
// key order: UTF-8 byte order here, where 0.6 compared UTF-16 code units
// (the two differ only for supplementary characters against
// U+E000-U+FFFF). Token strings are the keys themselves; the minimum token
// is "".
//
// A token is the escaped key, which already identifies the key, so a row
// key is just the token.
type OrderPreservingPartitioner struct{}

// Name implements Partitioner.
func (OrderPreservingPartitioner) Name() string { return dhtPackage + "OrderPreservingPartitioner" }

// Token implements Partitioner.
func (OrderPreservingPartitioner) Token(key string) Token { return keyToken(key) }

// TokenString implements Partitioner: the key.
func (OrderPreservingPartitioner) TokenString(t Token) string { return string(keyOfToken(t)) }

// TokenMapString implements Partitioner; StringToken.toString() is the key.
func (OrderPreservingPartitioner) TokenMapString(t Token) string { return string(keyOfToken(t)) }

// ParseToken implements Partitioner. Every string is a token.
func (OrderPreservingPartitioner) ParseToken(s string) (Token, error) { return keyToken(s), nil }

// RowKey implements Partitioner.
func (OrderPreservingPartitioner) RowKey(dst []byte, key string) []byte {
	return appendEscaped(dst, key)
}

// DecodeRowKey implements Partitioner.
func (OrderPreservingPartitioner) DecodeRowKey(enc []byte) (key string, t Token, rest []byte, err error) {
	return decodeKeyToken(enc)
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
	return keyToken(b[:])
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
