// Package comparator implements Cassandra 0.6's column name types
// (org.apache.cassandra.db.marshal): their order, their validation, and an
// order-preserving byte encoding that lets the storage engine keep names
// sorted by plain byte comparison.
package comparator

// Comparator is one of 0.6's AbstractType subclasses.
//
// Contract, checked for every implementation by CheckComparator:
//   - Compare is a total order; the empty name sorts before every other name.
//   - Validate(nil) and Validate([]byte{}) return nil: empty means "unbounded"
//     in a slice bound.
//   - For every a, b valid for Validate:
//     sign(bytes.Compare(Encode(nil, a), Encode(nil, b))) == sign(Compare(a, b)).
//   - Encodings are self-delimiting: for valid a, b and any suffixes x, y,
//     Encode(nil, a)+x and Encode(nil, b)+y compare as a and b do whenever
//     Compare(a, b) != 0, and Decode(Encode(nil, a)+x) == (a, x).
type Comparator interface {
	// Name is the fully qualified Java class name, as describe_keyspace
	// reports it, e.g. "org.apache.cassandra.db.marshal.BytesType".
	Name() string
	// Compare returns -1, 0 or +1 as a sorts before, with, or after b.
	Compare(a, b []byte) int
	// Validate returns nil if name is acceptable, else an error whose text is
	// 0.6's MarshalException message, sent to clients as the `why` of an
	// InvalidRequestException.
	Validate(name []byte) error
	// Encode appends the order-preserving, self-delimiting encoding of name
	// to dst and returns the extended slice. name must be valid.
	Encode(dst, name []byte) []byte
	// Decode reads one encoded name from the front of enc and returns it and
	// the bytes after it. The returned name may alias enc.
	Decode(enc []byte) (name, rest []byte, err error)
}
