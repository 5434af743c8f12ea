// Package partitioner implements the row partitioners thriftd supports:
// how a row key maps to a token, how tokens order the ring, and how tokens
// are written as strings on the wire.
package partitioner

// Token is a position on the ring in an order-preserving, self-delimiting
// byte encoding: bytes.Compare of two Tokens is the ring order. The minimum
// token of every partitioner is the empty Token, which no row key maps to.
type Token []byte

// Partitioner is one of the org.apache.cassandra.dht partitioners.
//
// Contract, checked for every implementation by CheckPartitioner:
//   - Token(k) is non-empty for every non-empty key k.
//   - RowKey(nil, k) begins with Token(k); for keys a != b,
//     bytes.Compare(RowKey(a), RowKey(b)) orders first by token, then by key,
//     and is never 0. RowKey encodings are self-delimiting:
//     DecodeRowKey(RowKey(nil, k)+x) == (k, Token(k), x).
//   - ParseToken(TokenString(t)) == t for every token t, including the minimum.
type Partitioner interface {
	// Name is the fully qualified class name, as describe_partitioner reports it.
	Name() string
	// Token returns the token of a row key ("" gives the minimum token).
	Token(key string) Token
	// TokenString formats a token as clients see it in KeyRange.start_token,
	// describe_ring and describe_splits.
	TokenString(t Token) string
	// ParseToken reads a token string; the error text is sent to the client
	// as the `why` of an InvalidRequestException.
	ParseToken(s string) (Token, error)
	// TokenMapString formats a token as 0.6's Token.toString() did, for
	// get_string_property("token map").
	TokenMapString(t Token) string
	// RowKey appends the storage encoding of a row key to dst.
	RowKey(dst []byte, key string) []byte
	// DecodeRowKey reads one RowKey encoding from the front of enc and
	// returns the key, its token and the bytes after it.
	DecodeRowKey(enc []byte) (key string, t Token, rest []byte, err error)
	// RandomToken returns a token for a node whose InitialToken is unset.
	RandomToken() Token
}
