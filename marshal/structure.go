package marshal

import "strings"

// Components returns the component types of a CompositeType, in order, or
// nil for any other type (a DynamicCompositeType names its components'
// types in each name, so it has none of its own).
func Components(c Comparator) []Comparator {
	if cc, ok := c.(*composite); ok {
		return append([]Comparator(nil), cc.types...)
	}
	return nil
}

// Unreversed returns t and true for ReversedType(t), and c and false for
// any other type.
func Unreversed(c Comparator) (Comparator, bool) {
	if r, ok := c.(*reversed); ok {
		return r.base, true
	}
	return c, false
}

// Comparable12 reports whether Cassandra 1.2's compare of t takes name
// as an operand without failing. Its DoubleType, FloatType,
// LexicalUUIDType and TimeUUIDType read fixed-width fields without checking
// the length, its DecimalType a 4-byte scale and at least one byte of
// value, and its CompositeType each component's length, value and
// end-of-component byte and the component's type, so a name they do not
// accept makes the comparison throw. Only a start column of
// get_paged_slice, which 1.2 did not validate, can reach a comparison so;
// the read then failed inside the server.
func Comparable12(t Comparator, name []byte) bool {
	if len(name) == 0 {
		return true
	}
	if base, rev := Unreversed(t); rev {
		return Comparable12(base, name)
	}
	if comps := Components(t); comps != nil {
		for i := 0; len(name) > 0; i++ {
			if i >= len(comps) || len(name) < 2 {
				return false
			}
			n := int(name[0])<<8 | int(name[1])
			if len(name) < 2+n+1 || !Comparable12(comps[i], name[2:2+n]) {
				return false
			}
			name = name[2+n+1:]
		}
		return true
	}
	switch strings.TrimPrefix(t.Name(), marshalPackage) {
	case "DoubleType", "TimeUUIDType":
		return len(name) >= 8
	case "FloatType":
		return len(name) >= 4
	case "DecimalType":
		// A 4-byte scale, then an unscaled value of at least one byte.
		return len(name) >= 5
	case "LexicalUUIDType":
		return len(name) >= 16
	}
	return true
}
