package comparator

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
