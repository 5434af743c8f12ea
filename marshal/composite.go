package marshal

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A composite name (CompositeType, DynamicCompositeType) is a sequence of
// components, each <length:2><value><end-of-component byte>. In a slice
// bound the last end-of-component byte (EOC) says where the bound falls
// among the names it prefixes: negative before them all, positive after
// them all, zero at the prefix itself (before its extensions). 1.2's
// AbstractCompositeType.compare compares component by component: the
// values by their type, then the EOCs by sign only (so 1 and 2 are
// equal), and a name that ends first sorts first.
//
// The order key of a name is, per component, 0x01, the value's key and
// the EOC's sign as 0x01, 0x02 or 0x03, and 0x00 at the end; a component
// that continues sorts after one that ends, and after every component a
// differing EOC sign decides before anything that follows.

// readComponent splits the first component off b. It is lenient, for names
// that Validate rejects: a length past the end takes what is left, and a
// missing EOC is zero.
func readComponent(b []byte) (value []byte, eoc byte, rest []byte) {
	if len(b) < 2 {
		return b, 0, nil
	}
	n := int(binary.BigEndian.Uint16(b))
	b = b[2:]
	if n > len(b) {
		return b, 0, nil
	}
	value, b = b[:n], b[n:]
	if len(b) == 0 {
		return value, 0, nil
	}
	return value, b[0], b[1:]
}

// eocClass maps an EOC onto 1 (negative), 2 (zero) or 3 (positive).
func eocClass(b byte) byte {
	switch {
	case int8(b) < 0:
		return 1
	case b > 0:
		return 3
	}
	return 2
}

// validateComponent checks one component's size, value and EOC as
// AbstractCompositeType.validate does, with its messages.
func validateComponent(t Comparator, b []byte, i int) ([]byte, error) {
	is := strconv.Itoa(i)
	if len(b) < 2 {
		return nil, MarshalError("Not enough bytes to read value size of component " + is)
	}
	n := int(binary.BigEndian.Uint16(b))
	b = b[2:]
	if len(b) < n {
		return nil, MarshalError("Not enough bytes to read value of component " + is)
	}
	if err := t.Validate(b[:n]); err != nil {
		return nil, err
	}
	b = b[n:]
	if len(b) == 0 {
		return nil, MarshalError("Not enough bytes to read the end-of-component byte of component" + is)
	}
	if b[0] != 0 && len(b) > 1 {
		return nil, MarshalError("Invalid bytes remaining after an end-of-component at component" + is)
	}
	return b[1:], nil
}

// compareComponentTail compares the values of one component with t and
// then the EOCs; done reports a decision.
func compareComponentTail(t Comparator, a, b []byte) (c int, ra, rb []byte, done bool) {
	va, ea, ra := readComponent(a)
	vb, eb, rb := readComponent(b)
	if c := t.Compare(va, vb); c != 0 {
		return c, nil, nil, true
	}
	if ca, cb := eocClass(ea), eocClass(eb); ca != cb {
		return sign(int(ca) - int(cb)), nil, nil, true
	}
	return 0, ra, rb, false
}

// compareEnds is the end of AbstractCompositeType.compare: the name that
// ran out first sorts first.
func compareEnds(a, b []byte) int {
	switch {
	case len(a) == 0 && len(b) == 0:
		return 0
	case len(a) == 0:
		return -1
	}
	return 1
}

// appendComponentKey appends the key of one component's value and EOC.
func appendComponentKey(t Comparator, dst, b []byte) ([]byte, []byte) {
	v, e, rest := readComponent(b)
	dst = appendKey(t, dst, v)
	return append(dst, eocClass(e)), rest
}

func skipComponentKey(t Comparator, enc []byte) ([]byte, error) {
	enc, err := skipKey(t, enc)
	if err != nil {
		return nil, err
	}
	if len(enc) == 0 || enc[0] < 1 || enc[0] > 3 {
		return nil, fmt.Errorf("%w: bad end-of-component", ErrMalformed)
	}
	return enc[1:], nil
}

const (
	compEnd  = 0x00
	compMore = 0x01
)

// composite is CompositeType(t1,...,tn).
type composite struct {
	types []Comparator
	name  string
}

func newComposite(types []Comparator) *composite {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = t.Name()
	}
	return &composite{types: types, name: marshalPackage + "CompositeType(" + strings.Join(names, ",") + ")"}
}

func (c *composite) Name() string { return c.name }

// typeAt is the type of component i; components past the declared ones
// (never valid) compare as bytes.
func (c *composite) typeAt(i int) Comparator {
	if i < len(c.types) {
		return c.types[i]
	}
	return bytes12{}
}

func (c *composite) Validate(name []byte) error {
	for i := 0; len(name) > 0; i++ {
		if i >= len(c.types) {
			return MarshalError("Too many bytes for comparator")
		}
		var err error
		if name, err = validateComponent(c.types[i], name, i); err != nil {
			return err
		}
	}
	return nil
}

func (c *composite) Compare(a, b []byte) int {
	for i := 0; len(a) > 0 && len(b) > 0; i++ {
		r, ra, rb, done := compareComponentTail(c.typeAt(i), a, b)
		if done {
			return r
		}
		a, b = ra, rb
	}
	return compareEnds(a, b)
}

func (c *composite) appendKey(dst, name []byte) []byte {
	for i := 0; len(name) > 0; i++ {
		dst, name = appendComponentKey(c.typeAt(i), append(dst, compMore), name)
	}
	return append(dst, compEnd)
}

func (c *composite) skipKey(enc []byte) ([]byte, error) {
	for i := 0; ; i++ {
		if len(enc) == 0 {
			return nil, fmt.Errorf("%w: unterminated composite", ErrMalformed)
		}
		switch enc[0] {
		case compEnd:
			return enc[1:], nil
		case compMore:
		default:
			return nil, fmt.Errorf("%w: bad composite tag %#02x", ErrMalformed, enc[0])
		}
		var err error
		if enc, err = skipComponentKey(c.typeAt(i), enc[1:]); err != nil {
			return nil, err
		}
	}
}

func (c *composite) Encode(dst, name []byte) []byte { return encodeKeyed(c, dst, name) }
func (c *composite) Decode(enc []byte) ([]byte, []byte, error) {
	return decodeKeyed(c, enc)
}

// dynamicComposite is DynamicCompositeType(a=>t,...): each component names
// its own type before its value, by a two-byte header that is either
// 0x8000 | alias byte, or the length of a type name that follows (parsed
// as Parse does). Components of different types compare by the types'
// simple class names, then their full class names; one of these decides,
// and the values are not compared. Two different types of one class (two
// CompositeTypes, say) the real server compares with the first name's
// type, which is not an order; here their printed names decide.
type dynamicComposite struct {
	aliases map[byte]Comparator
	name    string
}

func newDynamicComposite(list []alias) *dynamicComposite {
	d := &dynamicComposite{aliases: make(map[byte]Comparator, len(list))}
	for _, a := range list {
		d.aliases[a.b] = a.t
	}
	// 1.2 prints the aliases in the iteration order of its HashMap<Byte,
	// ...>: by bucket (the byte modulo the table size), then in the order
	// they were declared.
	size := 16
	for len(list) > size*3/4 {
		size *= 2
	}
	ordered := append([]alias(nil), list...)
	sort.SliceStable(ordered, func(i, j int) bool {
		return int(ordered[i].b)&(size-1) < int(ordered[j].b)&(size-1)
	})
	var sb strings.Builder
	sb.WriteString(marshalPackage + "DynamicCompositeType(")
	for i, a := range ordered {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteByte(a.b)
		sb.WriteString("=>")
		sb.WriteString(a.t.Name())
	}
	sb.WriteByte(')')
	d.name = sb.String()
	return d
}

func (d *dynamicComposite) Name() string { return d.name }

// componentType reads a component's type header. t is nil when the header
// names no type the server knows.
func (d *dynamicComposite) componentType(b []byte) (t Comparator, rest []byte) {
	if len(b) < 2 {
		return nil, nil
	}
	h := int(binary.BigEndian.Uint16(b))
	b = b[2:]
	if h&0x8000 != 0 {
		return d.aliases[byte(h)], b
	}
	if h > len(b) {
		return nil, nil
	}
	name := b[:h]
	if !utf8.Valid(name) {
		return nil, b[h:]
	}
	t, err := Parse(string(name))
	if err != nil {
		return nil, b[h:]
	}
	return t, b[h:]
}

func (d *dynamicComposite) Validate(name []byte) error {
	for i := 0; len(name) > 0; i++ {
		is := strconv.Itoa(i)
		if len(name) < 2 {
			return MarshalError("Not enough bytes to header of the comparator part of component " + is)
		}
		if h := int(binary.BigEndian.Uint16(name)); h&0x8000 == 0 && len(name)-2 < h {
			return MarshalError("Not enough bytes to read comparator name of component " + is)
		}
		t, rest := d.componentType(name)
		if t == nil {
			return MarshalError("Cannot find comparator for component " + is)
		}
		var err error
		if name, err = validateComponent(t, rest, i); err != nil {
			return err
		}
	}
	return nil
}

// classNames returns a type's Java class name and simple class name; ""
// for an unknown type.
func classNames(t Comparator) (full, simple string) {
	if t == nil {
		return "", ""
	}
	full = t.Name()
	if i := strings.IndexByte(full, '('); i >= 0 {
		full = full[:i]
	}
	return full, full[strings.LastIndexByte(full, '.')+1:]
}

func typeName(t Comparator) string {
	if t == nil {
		return ""
	}
	return t.Name()
}

func compareTypes(a, b Comparator) int {
	if typeName(a) == typeName(b) {
		return 0
	}
	fa, sa := classNames(a)
	fb, sb := classNames(b)
	if c := strings.Compare(sa, sb); c != 0 {
		return c
	}
	if c := strings.Compare(fa, fb); c != 0 {
		return c
	}
	return strings.Compare(typeName(a), typeName(b))
}

func orBytes(t Comparator) Comparator {
	if t == nil {
		return bytes12{}
	}
	return t
}

func (d *dynamicComposite) Compare(a, b []byte) int {
	for len(a) > 0 && len(b) > 0 {
		ta, ra := d.componentType(a)
		tb, rb := d.componentType(b)
		if c := compareTypes(ta, tb); c != 0 {
			return c
		}
		r, ra, rb, done := compareComponentTail(orBytes(ta), ra, rb)
		if done {
			return r
		}
		a, b = ra, rb
	}
	return compareEnds(a, b)
}

// appendKey gives each component the type's simple class name, class name
// and printed name, escaped, before the value's key.
func (d *dynamicComposite) appendKey(dst, name []byte) []byte {
	for len(name) > 0 {
		t, rest := d.componentType(name)
		full, simple := classNames(t)
		dst = append(dst, compMore)
		dst = appendEscaped(dst, []byte(simple))
		dst = appendEscaped(dst, []byte(full))
		dst = appendEscaped(dst, []byte(typeName(t)))
		dst, name = appendComponentKey(orBytes(t), dst, rest)
	}
	return append(dst, compEnd)
}

func (d *dynamicComposite) skipKey(enc []byte) ([]byte, error) {
	for {
		if len(enc) == 0 {
			return nil, fmt.Errorf("%w: unterminated composite", ErrMalformed)
		}
		switch enc[0] {
		case compEnd:
			return enc[1:], nil
		case compMore:
		default:
			return nil, fmt.Errorf("%w: bad composite tag %#02x", ErrMalformed, enc[0])
		}
		enc = enc[1:]
		var names [3][]byte
		for i := range names {
			var err error
			if names[i], enc, err = decodeEscaped(enc); err != nil {
				return nil, err
			}
		}
		var t Comparator
		if len(names[2]) > 0 {
			var err error
			if t, err = Parse(string(names[2])); err != nil {
				return nil, fmt.Errorf("%w: unknown type %q", ErrMalformed, names[2])
			}
		}
		var err error
		if enc, err = skipComponentKey(orBytes(t), enc); err != nil {
			return nil, err
		}
	}
}

func (d *dynamicComposite) Encode(dst, name []byte) []byte { return encodeKeyed(d, dst, name) }
func (d *dynamicComposite) Decode(enc []byte) ([]byte, []byte, error) {
	return decodeKeyed(d, enc)
}

// reversed is ReversedType(t): t's order backwards, except that the empty
// name still sorts first.
type reversed struct {
	base Comparator
	name string
}

func newReversed(base Comparator) *reversed {
	return &reversed{base: base, name: marshalPackage + "ReversedType(" + base.Name() + ")"}
}

func (r *reversed) Name() string               { return r.name }
func (r *reversed) Validate(name []byte) error { return r.base.Validate(name) }

func (r *reversed) Compare(a, b []byte) int {
	if c, done := compareEmpty(a, b); done {
		return c
	}
	return r.base.Compare(b, a)
}

// The encoding is 0x00 for the empty name, else 0x01 and the base type's
// encoding with every bit flipped: the base encodings are prefix-free, so
// flipping them reverses their order.
func appendFlipped(dst []byte, from int) []byte {
	for i := from; i < len(dst); i++ {
		dst[i] = ^dst[i]
	}
	return dst
}

func (r *reversed) Encode(dst, name []byte) []byte {
	if len(name) == 0 {
		return append(dst, 0x00)
	}
	dst = append(dst, 0x01)
	return appendFlipped(r.base.Encode(dst, name), len(dst))
}

func (r *reversed) appendKey(dst, name []byte) []byte {
	if len(name) == 0 {
		return append(dst, 0x00)
	}
	dst = append(dst, 0x01)
	return appendFlipped(appendKey(r.base, dst, name), len(dst))
}

// unflip returns enc after its tag, flipped back, in a new slice.
func unflip(enc []byte) ([]byte, error) {
	if len(enc) == 0 || enc[0] > 0x01 {
		return nil, fmt.Errorf("%w: bad reversed tag", ErrMalformed)
	}
	return appendFlipped(append([]byte(nil), enc[1:]...), 0), nil
}

func (r *reversed) Decode(enc []byte) (name, rest []byte, err error) {
	if len(enc) > 0 && enc[0] == 0x00 {
		return enc[1:1], enc[1:], nil
	}
	plain, err := unflip(enc)
	if err != nil {
		return nil, nil, err
	}
	name, after, err := r.base.Decode(plain)
	if err != nil {
		return nil, nil, err
	}
	if len(name) == 0 {
		return nil, nil, fmt.Errorf("%w: reversed empty name", ErrMalformed)
	}
	return name, enc[len(enc)-len(after):], nil
}

func (r *reversed) skipKey(enc []byte) ([]byte, error) {
	if len(enc) > 0 && enc[0] == 0x00 {
		return enc[1:], nil
	}
	plain, err := unflip(enc)
	if err != nil {
		return nil, err
	}
	after, err := skipKey(r.base, plain)
	if err != nil {
		return nil, err
	}
	return enc[len(enc)-len(after):], nil
}
