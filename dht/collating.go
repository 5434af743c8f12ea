package dht

import (
	"encoding/hex"
	"sync"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// CollatingOrderPreservingPartitioner orders rows by the en-US collation
// of their keys; the token of a key is its collation key, written as
// lowercase hex, and the minimum token is "".
//
// The collation keys are golang.org/x/text's (Unicode Collation Algorithm,
// CLDR root order), not the bytes java.text.Collator produced, so token
// strings differ from 0.6's (0.6 gave "a" the token 00530000000100000001)
// and a token saved from 0.6 names a different ring position here. The
// order of ordinary keys is the same: digits before letters, lowercase
// before uppercase, accents after the bare letter, and Java's treatment
// of '-', which it ignored except to break ties: keys "-a", "-b", "a",
// "b", "0" to "99" collate as 0, 1, 10 ... 19, 2, 20 ... 99, a, -a, b, -b.
// To get that, the collator uses alternate handling "shift-trimmed" at
// quaternary strength (BCP 47 "en-US-u-ka-posix-ks-level4"): spaces,
// punctuation and symbols are ignored at the first three levels and then
// break ties, with the key that lacks them first. Java ignored only a few
// characters, '-' among them, so keys that differ in other punctuation
// (e.g. "a.b" against "ab") may order differently than in 0.6.
//
// A token is the escaped collation key; a row key is the token followed by
// the escaped key, since distinct keys may share a collation key.
//
// The zero value is ready to use. A CollatingOrderPreservingPartitioner
// must not be copied after first use.
type CollatingOrderPreservingPartitioner struct {
	// collators holds *collator values: an x/text Collator keeps iteration
	// state and may be used by one goroutine at a time.
	collators sync.Pool
}

// collationTag selects en-US collation with the options described above.
const collationTag = "en-US-u-ka-posix-ks-level4"

type collator struct {
	c   *collate.Collator
	buf collate.Buffer
}

// appendCollationToken appends the token of a non-empty key to dst.
func (p *CollatingOrderPreservingPartitioner) appendCollationToken(dst []byte, key string) []byte {
	c, _ := p.collators.Get().(*collator)
	if c == nil {
		c = &collator{c: collate.New(language.Make(collationTag))}
	}
	dst = appendEscaped(dst, c.c.KeyFromString(&c.buf, key))
	c.buf.Reset()
	p.collators.Put(c)
	return dst
}

// Name implements Partitioner.
func (*CollatingOrderPreservingPartitioner) Name() string {
	return dhtPackage + "CollatingOrderPreservingPartitioner"
}

// Token implements Partitioner.
func (p *CollatingOrderPreservingPartitioner) Token(key string) Token {
	if key == "" {
		return Token{}
	}
	return p.appendCollationToken(nil, key)
}

// TokenString implements Partitioner: the collation key in lowercase hex.
func (*CollatingOrderPreservingPartitioner) TokenString(t Token) string {
	return hex.EncodeToString(keyOfToken(t))
}

// TokenMapString implements Partitioner, as 0.6's BytesToken.toString()
// did.
func (*CollatingOrderPreservingPartitioner) TokenMapString(t Token) string {
	return "Token(bytes[" + hex.EncodeToString(keyOfToken(t)) + "])"
}

// ParseToken implements Partitioner. It accepts an even number of hex
// digits in either case; any bytes are a position on the ring.
func (*CollatingOrderPreservingPartitioner) ParseToken(s string) (Token, error) {
	b, err := hex.DecodeString(s)
	if err != nil {
		return nil, &TokenError{Partitioner: "CollatingOrderPreservingPartitioner", Token: s, Want: hexWant}
	}
	return keyToken(b), nil
}

// RowKey implements Partitioner.
func (p *CollatingOrderPreservingPartitioner) RowKey(dst []byte, key string) []byte {
	return appendEscaped(p.appendCollationToken(dst, key), key)
}

// DecodeRowKey implements Partitioner.
func (*CollatingOrderPreservingPartitioner) DecodeRowKey(enc []byte) (key string, t Token, rest []byte, err error) {
	_, afterToken, err := decodeEscaped(enc)
	if err != nil {
		return "", nil, nil, err
	}
	return decodeKeyAfter(enc, len(enc)-len(afterToken))
}

// RandomToken implements Partitioner: 16 random bytes.
func (*CollatingOrderPreservingPartitioner) RandomToken() Token { return randomBytesToken() }
