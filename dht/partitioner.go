// Package partitioner implements the row partitioners thriftd supports:
// how a row key maps to a token, how tokens order the ring, and how tokens
// are written as strings on the wire.
//
// RandomPartitioner and OrderPreservingPartitioner reproduce 0.6 exactly,
// OrderPreservingPartitioner down to Java's UTF-16 order of keys with
// supplementary characters. ByteOrderedPartitioner and
// Murmur3Partitioner are the later Cassandra partitioners of those names.
// CollatingOrderPreservingPartitioner orders keys by en-US collation, but
// its token bytes are golang.org/x/text collation keys, not Java's (see
// CollatingOrderPreservingPartitioner).
//
// Rows are stored under RowKey, which is the token followed by the key
// itself wherever the token alone does not identify the key, so two keys
// with the same token (an MD5 or Murmur3 collision, equal collation keys)
// stay two rows, ordered by key bytes. 0.6 merged them into one row.
package dht

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Token is a position on the ring in an order-preserving, self-delimiting
// byte encoding: bytes.Compare of two Tokens is the ring order. The minimum
// token of every partitioner is the empty Token, which no row key maps to.
type Token []byte

// Partitioner is one of the org.apache.cassandra.dht partitioners.
//
// Contract, checked for every implementation by the package's shared
// property test (checkPartitioner in partitioner_test.go):
//   - Token(k) is non-empty for every non-empty key k.
//   - RowKey(nil, k) begins with Token(k); for keys a != b,
//     bytes.Compare(RowKey(a), RowKey(b)) orders first by token, then by key
//     bytes, and is never 0. RowKey encodings are self-delimiting:
//     DecodeRowKey(RowKey(nil, k)+x) == (k, Token(k), x).
//   - ParseToken(TokenString(t)) == t for every token t, including the minimum.
//   - Every method is safe for concurrent use, and none panics on any input.
type Partitioner interface {
	// Name is the fully qualified class name, as describe_partitioner reports it.
	Name() string
	// Token returns the token of a row key ("" gives the minimum token).
	Token(key string) Token
	// TokenString formats a token as clients see it in KeyRange.start_token,
	// describe_ring and describe_splits.
	TokenString(t Token) string
	// ParseToken reads a token string; the error, a *TokenError, is sent
	// to the client as the `why` of an InvalidRequestException.
	ParseToken(s string) (Token, error)
	// TokenMapString formats a token as 0.6's Token.toString() did, for
	// get_string_property("token map").
	TokenMapString(t Token) string
	// RowKey appends the storage encoding of a row key to dst. key must be
	// non-empty (0.6 rejects empty keys before they reach storage).
	RowKey(dst []byte, key string) []byte
	// DecodeRowKey reads one RowKey encoding from the front of enc and
	// returns the key, its token and the bytes after it. The token may
	// alias enc. It checks the structure only, not that the token belongs
	// to the key; malformed input gives an error wrapping ErrMalformed.
	DecodeRowKey(enc []byte) (key string, t Token, rest []byte, err error)
	// RandomToken returns a token for a node whose InitialToken is unset.
	// It is never the minimum token.
	RandomToken() Token
}

// Upgrader is implemented by a partitioner whose RowKey encoding changed
// after stores were written with an earlier one. Versions count from 1;
// a partitioner that does not implement Upgrader is at version 1.
type Upgrader interface {
	// RowKeyVersion is the version of the encoding RowKey writes.
	RowKeyVersion() int
	// UpgradeRowKey reads one row key of encoding version from at the
	// front of enc and appends its current encoding to dst, returning the
	// bytes after it. changed is false when both encodings are the same
	// bytes. A version it does not know, or malformed input, gives an error
	// wrapping ErrMalformed.
	UpgradeRowKey(dst, enc []byte, from int) (out, rest []byte, changed bool, err error)
}

// RowKeyVersion is the version of the encoding p.RowKey writes.
func RowKeyVersion(p Partitioner) int {
	if u, ok := p.(Upgrader); ok {
		return u.RowKeyVersion()
	}
	return 1
}

// ErrMalformed is wrapped by every DecodeRowKey error: the bytes are not a
// row key this package wrote, which means stored data is corrupt.
var ErrMalformed = errors.New("malformed row key")

// TokenError is a token string a partitioner cannot read.
type TokenError struct {
	// Partitioner is the short class name, e.g. "RandomPartitioner".
	Partitioner string
	// Token is the string as the client sent it.
	Token string
	// Want says what a token of this partitioner looks like.
	Want string
}

// maxQuotedToken bounds how much of a bad token an error repeats back.
const maxQuotedToken = 100

func (e *TokenError) Error() string {
	tok := e.Token
	if len(tok) > maxQuotedToken {
		cut := maxQuotedToken
		for cut > 0 && !utf8.RuneStart(tok[cut]) {
			cut--
		}
		tok = tok[:cut] + "..."
	}
	return fmt.Sprintf("Invalid token for %s: '%s' (want %s)", e.Partitioner, tok, e.Want)
}

// dhtPackage is the Java package short partitioner names resolve into.
const dhtPackage = "org.apache.cassandra.dht."

// Lookup resolves a <Partitioner> value from storage-conf.xml. A value
// without '.' is a short name in org.apache.cassandra.dht; any other value
// must be the fully qualified name of a supported partitioner. The error
// for anything else names the resolved class; the caller adds where it
// came from.
func Lookup(class string) (Partitioner, error) {
	fqn := class
	if !strings.Contains(class, ".") {
		fqn = dhtPackage + class
	}
	switch strings.TrimPrefix(fqn, dhtPackage) {
	case "RandomPartitioner":
		return RandomPartitioner{}, nil
	case "OrderPreservingPartitioner":
		return OrderPreservingPartitioner{}, nil
	case "ByteOrderedPartitioner":
		return ByteOrderedPartitioner{}, nil
	case "CollatingOrderPreservingPartitioner":
		return &CollatingOrderPreservingPartitioner{}, nil
	case "Murmur3Partitioner":
		return Murmur3Partitioner{}, nil
	}
	return nil, fmt.Errorf("unknown partitioner class %s", fqn)
}

// The escaped encoding of keys and of variable-length tokens, the same as
// comparator.BytesType's: every 0x00 becomes 0x00 0xFF and the end is
// 0x00 0x01. Both pairs sort below any non-zero byte, and the terminator
// below an escaped zero, so a proper prefix still sorts first and no
// encoding is a prefix of another.
const (
	escByte = 0x00
	escZero = 0xFF
	escEnd  = 0x01
	escLen  = 2
)

func appendEscaped[T string | []byte](dst []byte, s T) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == escByte {
			dst = append(dst, s[start:i+1]...)
			dst = append(dst, escZero)
			start = i + 1
		}
	}
	dst = append(dst, s[start:]...)
	return append(dst, escByte, escEnd)
}

// decodeEscaped reads one escaped string from the front of enc. The
// result aliases enc when it holds no zero byte.
func decodeEscaped(enc []byte) (s, rest []byte, err error) {
	var out []byte // nil until a zero byte forces a copy
	for {
		i := bytes.IndexByte(enc, escByte)
		if i < 0 || i+1 >= len(enc) {
			return nil, nil, fmt.Errorf("%w: unterminated", ErrMalformed)
		}
		switch enc[i+1] {
		case escEnd:
			if out == nil {
				return enc[:i:i], enc[i+escLen:], nil
			}
			return append(out, enc[:i]...), enc[i+escLen:], nil
		case escZero:
			out = append(out, enc[:i+1]...)
			enc = enc[i+escLen:]
		default:
			return nil, nil, fmt.Errorf("%w: byte %#02x after 0x00", ErrMalformed, enc[i+1])
		}
	}
}

// decodeKeyAfter decodes the escaped key that follows a token of tokLen
// bytes at the front of enc.
func decodeKeyAfter(enc []byte, tokLen int) (key string, t Token, rest []byte, err error) {
	t = Token(enc[:tokLen:tokLen])
	k, rest, err := decodeEscaped(enc[tokLen:])
	if err != nil {
		return "", nil, nil, err
	}
	if len(k) == 0 {
		return "", nil, nil, fmt.Errorf("%w: empty key", ErrMalformed)
	}
	return string(k), t, rest, nil
}
