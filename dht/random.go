package dht

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"math/big"
	"math/rand/v2"
)

// RandomPartitioner is 0.6's default: the token of a key is
// abs(BigInteger(md5(key))), the MD5 digest read as a signed two's
// complement big-endian integer, so tokens run from 0 to 2^127. The
// minimum token is written -1.
//
// Tokens are 16 bytes, the value big-endian unsigned; a row key is the
// token followed by the escaped key, since distinct keys may share a token.
type RandomPartitioner struct{}

const (
	rpTokenLen = 16
	rpMinToken = "-1"
	rpWant     = "-1 or a decimal integer from 0 to 2^127"
)

// Name implements Partitioner.
func (RandomPartitioner) Name() string { return dhtPackage + "RandomPartitioner" }

// Token implements Partitioner. Keys are hashed as their bytes, which is
// what 0.6 hashed for every key that is valid UTF-8.
func (RandomPartitioner) Token(key string) Token {
	if key == "" {
		return Token{}
	}
	return appendMD5Token(make(Token, 0, rpTokenLen), key)
}

func appendMD5Token(dst []byte, key string) []byte {
	sum := md5.Sum([]byte(key))
	hi, lo := binary.BigEndian.Uint64(sum[:8]), binary.BigEndian.Uint64(sum[8:])
	if hi>>63 == 1 {
		// Negate the 128-bit two's complement value. The most negative
		// one, -2^127, becomes 2^127, which still fits as unsigned.
		lo = ^lo + 1
		hi = ^hi
		if lo == 0 {
			hi++
		}
	}
	dst = binary.BigEndian.AppendUint64(dst, hi)
	return binary.BigEndian.AppendUint64(dst, lo)
}

// TokenString implements Partitioner: the decimal value.
func (RandomPartitioner) TokenString(t Token) string {
	if len(t) == 0 {
		return rpMinToken
	}
	return new(big.Int).SetBytes(t).String()
}

// TokenMapString implements Partitioner; BigIntegerToken.toString() is
// the decimal value too.
func (p RandomPartitioner) TokenMapString(t Token) string { return p.TokenString(t) }

// ParseToken implements Partitioner. It accepts -1 (the minimum) and the
// integers 0 to 2^127, the only values a key's token can take.
func (RandomPartitioner) ParseToken(s string) (Token, error) {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		return nil, &TokenError{Partitioner: "RandomPartitioner", Token: s, Want: rpWant}
	}
	if v.IsInt64() && v.Int64() == -1 {
		return Token{}, nil
	}
	// 2^127 is the only 128-bit value allowed.
	if v.Sign() < 0 || v.BitLen() > 128 || (v.BitLen() == 128 && v.TrailingZeroBits() != 127) {
		return nil, &TokenError{Partitioner: "RandomPartitioner", Token: s, Want: rpWant}
	}
	return Token(v.FillBytes(make([]byte, rpTokenLen))), nil
}

// RowKey implements Partitioner.
func (RandomPartitioner) RowKey(dst []byte, key string) []byte {
	return appendEscaped(appendMD5Token(dst, key), key)
}

// DecodeRowKey implements Partitioner.
func (RandomPartitioner) DecodeRowKey(enc []byte) (key string, t Token, rest []byte, err error) {
	if len(enc) < rpTokenLen {
		return "", nil, nil, fmt.Errorf("%w: %d bytes, shorter than a token", ErrMalformed, len(enc))
	}
	return decodeKeyAfter(enc, rpTokenLen)
}

// RandomToken implements Partitioner: uniform over 0 to 2^127-1.
func (RandomPartitioner) RandomToken() Token {
	t := binary.BigEndian.AppendUint64(make(Token, 0, rpTokenLen), rand.Uint64()>>1)
	return binary.BigEndian.AppendUint64(t, rand.Uint64())
}
