package marshal

import (
	"bytes"
	"fmt"
	"sync"
)

// keyed is implemented by the types whose order has several spellings of
// one name: names that Compare reports equal although their bytes differ
// (1.0 and 1.00 as DecimalType, a varint with a redundant sign byte, NaNs
// with different bits, a composite's last end-of-component byte 1 or 2, a
// DynamicCompositeType component named by alias or by class). For them
// appendKey is the order key proper, equal for equal names, and Encode is
// that key followed by the name's own bytes, escaped, so that Decode gives
// back exactly the bytes written. Such equal names therefore get different
// encodings, ordered by their bytes: the stores keep them as two adjacent
// columns where the real server would hold one, except a
// DynamicCompositeType's, whose stores reconcile the spellings found
// under one key into one column (Spellings).
//
// Composite types build their encodings from their components' keys, so
// that a component's spellings tie there and the next component decides,
// as in the real comparison.
type keyed interface {
	// appendKey appends the order key of name to dst: self-delimiting, and
	// bytes.Compare of two keys is the sign of Compare.
	appendKey(dst, name []byte) []byte
	// skipKey returns what follows the key at the front of enc.
	skipKey(enc []byte) ([]byte, error)
}

// appendKey appends c's order key of name: its Encode for the types whose
// encoding is already one per equal name.
func appendKey(c Comparator, dst, name []byte) []byte {
	if k, ok := c.(keyed); ok {
		return k.appendKey(dst, name)
	}
	return c.Encode(dst, name)
}

// skipKey returns what follows the order key at the front of enc.
func skipKey(c Comparator, enc []byte) ([]byte, error) {
	if k, ok := c.(keyed); ok {
		return k.skipKey(enc)
	}
	_, rest, err := c.Decode(enc)
	return rest, err
}

// encodeKeyed is Encode for a keyed type: the key, then the name escaped.
func encodeKeyed(k keyed, dst, name []byte) []byte {
	return appendEscaped(k.appendKey(dst, name), name)
}

// decodeKeyed is Decode for a keyed type. The key is checked against the
// name it precedes, so bytes that are not an encoding are reported.
func decodeKeyed(k keyed, enc []byte) (name, rest []byte, err error) {
	after, err := k.skipKey(enc)
	if err != nil {
		return nil, nil, err
	}
	name, rest, err = decodeEscaped(after)
	if err != nil {
		return nil, nil, err
	}
	bp := keyBuffers.Get().(*[]byte)
	want := k.appendKey((*bp)[:0], name)
	ok := bytes.Equal(want, enc[:len(enc)-len(after)])
	*bp = want[:0]
	keyBuffers.Put(bp)
	if !ok {
		return nil, nil, fmt.Errorf("%w: order key disagrees with its name", ErrMalformed)
	}
	return name, rest, nil
}

// keyBuffers hold the keys decodeKeyed rebuilds to check.
var keyBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// skipEscaped returns what follows one escaped string at the front of enc.
func skipEscaped(enc []byte) ([]byte, error) {
	for i := 0; ; {
		j := bytes.IndexByte(enc[i:], escByte)
		if j < 0 || i+j+1 >= len(enc) {
			return nil, fmt.Errorf("%w: unterminated name", ErrMalformed)
		}
		i += j
		switch enc[i+1] {
		case escEnd:
			return enc[i+escBytes:], nil
		case escZero:
			i += escBytes
		default:
			return nil, fmt.Errorf("%w: byte %#02x after 0x00", ErrMalformed, enc[i+1])
		}
	}
}

// skipN returns enc after n bytes, or a Decode error.
func skipN(enc []byte, n int, what string) ([]byte, error) {
	if len(enc) < n {
		return nil, fmt.Errorf("%w: short %s", ErrMalformed, what)
	}
	return enc[n:], nil
}

// Spellings returns the prefix that the encodings of every spelling of
// name share, and no other name's encoding, for a comparator whose
// spellings of one name Cassandra 1.2 held as one column: a
// DynamicCompositeType, whose components name their type by alias, by
// short or by full class name. ok is false for every other comparator,
// whose stores keep each spelling as a column of its own.
//
// A store keeps at most one of the spellings it finds under the prefix
// live, the version that wins (the higher timestamp, a tombstone on a tie,
// then the greater value), with the name it was written with; the
// encoding of each spelling is unchanged, so data written before is read
// as it was.
func Spellings(c Comparator, dst, name []byte) (prefix []byte, ok bool) {
	d, ok := c.(*dynamicComposite)
	if !ok {
		return dst, false
	}
	return d.appendKey(dst, name), true
}

// SpellingsOf returns the prefix Spellings gives for the name whose
// encoding starts enc.
func SpellingsOf(c Comparator, enc []byte) (prefix []byte, ok bool) {
	d, ok := c.(*dynamicComposite)
	if !ok {
		return nil, false
	}
	rest, err := d.skipKey(enc)
	if err != nil {
		return nil, false
	}
	return enc[:len(enc)-len(rest)], true
}

// HasSpellings reports whether c's names have spellings (Spellings).
func HasSpellings(c Comparator) bool {
	_, ok := c.(*dynamicComposite)
	return ok
}

// PrefixEnd returns the smallest key after every key that starts with
// prefix, in a new slice; nil when there is none (prefix is all 0xFF).
func PrefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xFF {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
