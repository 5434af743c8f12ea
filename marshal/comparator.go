// Package comparator implements Cassandra's column name and value types
// (org.apache.cassandra.db.marshal): their order, their validation, and an
// order-preserving byte encoding that lets the storage engine keep names
// sorted by plain byte comparison.
//
// Two families live here. The six types of 0.6 are the empty structs
// BytesType, AsciiType, UTF8Type, LongType, LexicalUUIDType and
// TimeUUIDType, with 0.6's orders and messages; Lookup resolves a
// CompareWith value from storage-conf.xml to one of them. The types of
// Cassandra 1.2 (and 2.0's TimestampType), which the 19.x API uses, come
// from Parse, Cassandra 1.2's TypeParser: BytesType, AsciiType, UTF8Type,
// LongType, Int32Type, IntegerType, DecimalType, BooleanType, DateType,
// TimestampType, DoubleType, FloatType, InetAddressType, UUIDType,
// LexicalUUIDType, TimeUUIDType, CounterColumnType, EmptyType,
// CompositeType, DynamicCompositeType and ReversedType, with 1.2.19's
// orders, messages and printed names. testdata/types-1.2.19.json holds the
// real server's answers, which the tests check every type against.
//
// Where the real order has several spellings of one name (see keyed in
// key.go), the encoding cannot both sort them equal and give back each
// one's bytes; it keeps the bytes and orders such names next to each
// other, by their bytes, so a store holds two columns where the real
// server held one; but for a DynamicCompositeType's spellings, which the
// stores reconcile into one column, as 1.2 did (Spellings).
package marshal

import (
	"errors"
	"fmt"
	"strings"
)

// Comparator is one of Cassandra's AbstractType subclasses.
//
// Contract, checked for every implementation by the package's shared
// property test (checkComparator in comparator_test.go):
//   - Compare is a total order; the empty name sorts before every other name.
//   - Validate(nil) and Validate([]byte{}) return nil: empty means "unbounded"
//     in a slice bound. The one exception is 1.2's InetAddressType, which
//     rejects the empty name as the real server did.
//   - For every a, b valid for Validate with Compare(a, b) != 0, or with
//     equal bytes:
//     sign(bytes.Compare(Encode(nil, a), Encode(nil, b))) == sign(Compare(a, b)).
//     Names that Compare reports equal but whose bytes differ (several
//     spellings of one value, e.g. DecimalType's 1.0 and 1.00) have
//     different encodings, ordered by their bytes.
//   - Encodings are self-delimiting: for valid a, b and any suffixes x, y,
//     Encode(nil, a)+x and Encode(nil, b)+y compare as a and b do whenever
//     Compare(a, b) != 0, and Decode(Encode(nil, a)+x) == (a, x).
//   - Encode and Decode never panic, whatever their input.
type Comparator interface {
	// Name is the fully qualified Java class name, as describe_keyspace
	// reports it, e.g. "org.apache.cassandra.db.marshal.BytesType"; for a
	// type with parameters, the way 1.2 prints it (toString), e.g.
	// "org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.LongType)".
	Name() string
	// Compare returns -1, 0 or +1 as a sorts before, with, or after b.
	Compare(a, b []byte) int
	// Validate returns nil if name is acceptable, else a MarshalError whose
	// text is the MarshalException message of the type's Cassandra version
	// (0.6 for Lookup's types, 1.2.19 for Parse's), sent to clients as the
	// `why` of an InvalidRequestException.
	Validate(name []byte) error
	// Encode appends the order-preserving, self-delimiting encoding of name
	// to dst and returns the extended slice. name must be valid; an invalid
	// name still encodes to something, but it may not decode back to name.
	Encode(dst, name []byte) []byte
	// Decode reads one encoded name from the front of enc and returns it and
	// the bytes after it. The returned name may alias enc. Malformed input
	// gives an error wrapping ErrMalformed.
	Decode(enc []byte) (name, rest []byte, err error)
}

// MarshalError is a name rejected by a comparator's Validate. Its text is
// exactly the real server's MarshalException message.
type MarshalError string

func (e MarshalError) Error() string { return string(e) }

// ErrMalformed is wrapped by every Decode error: the bytes are not an
// encoding this package wrote, which means stored data is corrupt.
var ErrMalformed = errors.New("malformed encoded column name")

// marshalPackage is the Java package short comparator names resolve into.
const marshalPackage = "org.apache.cassandra.db.marshal."

// Lookup resolves a CompareWith or CompareSubcolumnsWith value. A value
// without '.' is a short name in org.apache.cassandra.db.marshal; any other
// value must be the fully qualified name of one of the six types. The error
// for anything else names the resolved class; the caller adds where it
// came from.
func Lookup(class string) (Comparator, error) {
	fqn := class
	if !strings.Contains(class, ".") {
		fqn = marshalPackage + class
	}
	switch strings.TrimPrefix(fqn, marshalPackage) {
	case "BytesType":
		return BytesType{}, nil
	case "AsciiType":
		return AsciiType{}, nil
	case "UTF8Type":
		return UTF8Type{}, nil
	case "LongType":
		return LongType{}, nil
	case "LexicalUUIDType":
		return LexicalUUIDType{}, nil
	case "TimeUUIDType":
		return TimeUUIDType{}, nil
	}
	return nil, fmt.Errorf("unknown comparator class %s", fqn)
}

// Reverse returns the order used to traverse c backwards, as 0.6's reversed
// comparator defines it: the empty name still comes first (it stands for
// "unbounded"), and every other pair compares the opposite way.
func Reverse(c Comparator) func(a, b []byte) int {
	return func(a, b []byte) int {
		switch {
		case len(a) == 0 && len(b) == 0:
			return 0
		case len(a) == 0:
			return -1
		case len(b) == 0:
			return 1
		}
		return -c.Compare(a, b)
	}
}

// sign maps a comparison result onto -1, 0 or +1.
func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
