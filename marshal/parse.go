package marshal

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// Parse resolves a type name as Cassandra 1.2.19's TypeParser.parse does,
// and returns the 1.2 type: its order, its 1.2 validation messages, and a
// Name in the fully qualified form 1.2 prints.
//
// The grammar is TypeParser's: a name (letters, digits and -+._&) is short
// in org.apache.cassandra.db.marshal unless it holds a '.'; blanks (space,
// tab, newline) may surround names and parentheses; an empty name (the
// empty string, blanks, or no identifier first) is BytesType; what follows
// a complete type at the top is ignored. Parameters are types for
// CompositeType(a,b,...) and ReversedType(t), aliases for
// DynamicCompositeType(a=>t,...), and key=value pairs for every other
// type, of which only reversed (=true, or with no value) means anything:
// LongType(reversed=true) is ReversedType(LongType).
//
// The errors are the real server's ConfigurationException and
// SyntaxException messages, which it sends as the why of an
// InvalidRequestException: "Unable to find abstract-type class
// 'org.apache.cassandra.db.marshal.Foo'", and for any error inside the
// parameters of CompositeType, DynamicCompositeType or ReversedType
// "Invalid definition for comparator <class>.". Where the real parser
// fails with an unchecked Java exception (a key=value list cut short at
// the top), the message is that exception's; the real server dropped the
// connection instead of answering.
//
// Differences, each because the server cannot know a Java class path: a
// fully qualified name outside org.apache.cassandra.db.marshal is "Unable
// to find"; the collection types (ListType, SetType, MapType,
// ColumnToCollectionType) and LocalByPartionerType are refused as
// unsupported. TimestampType, which 1.2 lacks, is 2.0's.
//
// Results are cached by name, as TypeParser caches them (up to a bound).
func Parse(name string) (Comparator, error) {
	if t, ok := parseCache.Load(name); ok {
		return t.(Comparator), nil
	}
	t, err := parseTop([]rune(name))
	if err != nil {
		return nil, err
	}
	// Type names also come from data (a DynamicCompositeType component
	// may name its type), so the cache is bounded: past its size, names
	// are parsed each time.
	if parseCacheSize.Add(1) <= maxParseCache {
		parseCache.Store(name, t)
	}
	return t, nil
}

const maxParseCache = 4096

var (
	parseCache     sync.Map // string -> Comparator
	parseCacheSize atomic.Int64
)

// simple12 maps the short class names of the types without parameters to
// their 1.2 types.
var simple12 = map[string]Comparator{
	"BytesType":         bytes12{},
	"AsciiType":         ascii12{},
	"UTF8Type":          utf812{},
	"LongType":          long12{fixedSigned{8}},
	"Int32Type":         int3212{fixedSigned{4}},
	"IntegerType":       integer12{},
	"DecimalType":       decimal12{},
	"BooleanType":       boolean12{},
	"DateType":          date12{fixedUnsigned{8}},
	"TimestampType":     timestamp21{fixedSigned{8}},
	"DoubleType":        float12{8},
	"FloatType":         float12{4},
	"InetAddressType":   inet12{},
	"UUIDType":          uuid12{},
	"LexicalUUIDType":   lexicalUUID12{},
	"TimeUUIDType":      timeUUID12{},
	"CounterColumnType": counter12{fixedUnsigned{8}},
	"EmptyType":         empty12{},
}

// noInstance are classes of 1.2's marshal package that Class.forName finds
// but that are not usable types: no static instance, no getInstance.
var noInstance = map[string]bool{
	"AbstractType": true, "AbstractCompositeType": true, "AbstractCommutativeType": true,
	"CollectionType": true, "TypeParser": true, "MarshalException": true,
}

// unsupported are 1.2's types this server does not implement.
var unsupported = map[string]bool{
	"ListType": true, "SetType": true, "MapType": true, "ColumnToCollectionType": true,
	"LocalByPartionerType": true,
}

type typeParser struct {
	s   []rune
	idx int
}

// parseError is a name the real parser rejects. Inside the parameters of
// a type with getInstance every error becomes that type's "Invalid
// definition", so only the top level shows the other texts.
type parseError struct{ msg string }

func (e *parseError) Error() string { return e.msg }

func parseTop(s []rune) (Comparator, error) {
	i := skipBlank(s, 0)
	j := i
	for i < len(s) && isIdentifierChar(s[i]) {
		i++
	}
	if i == j {
		return bytes12{}, nil
	}
	name := string(s[j:i])
	i = skipBlank(s, i)
	if i < len(s) && s[i] == '(' {
		return (&typeParser{s: s, idx: i}).typeWithParameters(name)
	}
	return typeWithoutParameters(name)
}

func className(name string) string {
	if strings.Contains(name, ".") {
		return name
	}
	return marshalPackage + name
}

// knownClass reports whether the real server's class path has the class,
// and its short name in the marshal package.
func knownClass(fqn string) (short string, ok bool) {
	short, inPackage := strings.CutPrefix(fqn, marshalPackage)
	if !inPackage {
		return "", false
	}
	_, simple := simple12[short]
	switch {
	case simple, noInstance[short], unsupported[short],
		short == "CompositeType", short == "DynamicCompositeType", short == "ReversedType":
		return short, true
	}
	return "", false
}

func notFound(fqn string) error {
	return &parseError{fmt.Sprintf("Unable to find abstract-type class '%s'", fqn)}
}

func invalidClass(fqn string) error {
	return &parseError{fmt.Sprintf("Invalid comparator class %s: must define a public static instance field or a public static method getInstance(TypeParser).", fqn)}
}

func invalidDefinition(fqn string) error {
	return &parseError{fmt.Sprintf("Invalid definition for comparator %s.", fqn)}
}

// typeWithoutParameters is TypeParser.getAbstractType(name): a type's
// instance, or its getInstance over no parameters.
func typeWithoutParameters(name string) (Comparator, error) {
	fqn := className(name)
	short, ok := knownClass(fqn)
	if !ok {
		return nil, notFound(fqn)
	}
	if t, ok := simple12[short]; ok {
		return t, nil
	}
	switch {
	case noInstance[short]:
		return nil, invalidClass(fqn)
	case unsupported[short]:
		return nil, &parseError{fmt.Sprintf("%s is not supported by this server", fqn)}
	case short == "DynamicCompositeType":
		return newDynamicComposite(nil), nil
	}
	// CompositeType asserts it has components, ReversedType that it has
	// one: both fail inside getInstance.
	return nil, invalidDefinition(fqn)
}

// typeWithParameters is TypeParser.getAbstractType(name, parser), with the
// parser at the '(' that opens the parameters.
func (p *typeParser) typeWithParameters(name string) (Comparator, error) {
	fqn := className(name)
	short, ok := knownClass(fqn)
	if !ok {
		return nil, notFound(fqn)
	}
	switch {
	case noInstance[short]:
		return nil, invalidClass(fqn)
	case unsupported[short]:
		return nil, &parseError{fmt.Sprintf("%s is not supported by this server", fqn)}
	case short == "CompositeType":
		types, err := p.typeParameters()
		if err != nil || len(types) == 0 {
			return nil, invalidDefinition(fqn)
		}
		return newComposite(types), nil
	case short == "ReversedType":
		types, err := p.typeParameters()
		if err != nil || len(types) != 1 {
			return nil, invalidDefinition(fqn)
		}
		return newReversed(types[0]), nil
	case short == "DynamicCompositeType":
		aliases, err := p.aliasParameters()
		if err != nil {
			return nil, invalidDefinition(fqn)
		}
		return newDynamicComposite(aliases), nil
	}
	// AbstractType.parseDefaultParameters.
	t := simple12[short]
	params, err := p.keyValueParameters()
	if err != nil {
		return nil, err
	}
	if v, ok := params["reversed"]; ok && (v == "" || v == "true") {
		return newReversed(t), nil
	}
	return t, nil
}

// parse is TypeParser.parse() inside a parameter list.
func (p *typeParser) parse() (Comparator, error) {
	p.skipBlank()
	name := p.readNextIdentifier()
	p.skipBlank()
	if !p.eos() && p.s[p.idx] == '(' {
		return p.typeWithParameters(name)
	}
	return typeWithoutParameters(name)
}

func (p *typeParser) syntaxError(msg string) error {
	return &parseError{fmt.Sprintf("Syntax error parsing '%s' at char %d: %s", string(p.s), p.idx, msg)}
}

func (p *typeParser) endOfString() error {
	return p.syntaxError("unexpected end of string")
}

// outOfRange is the StringIndexOutOfBoundsException the real parser
// throws when it reads past the end.
func (p *typeParser) outOfRange(i int) error {
	return &parseError{fmt.Sprintf("String index out of range: %d", i)}
}

func (p *typeParser) at(i int) (rune, error) {
	if i >= len(p.s) {
		return 0, p.outOfRange(i)
	}
	return p.s[i], nil
}

// keyValueParameters is TypeParser.getKeyValueParameters.
func (p *typeParser) keyValueParameters() (map[string]string, error) {
	m := map[string]string{}
	p.idx++ // '('
	for p.skipBlankAndComma() {
		if p.s[p.idx] == ')' {
			p.idx++
			return m, nil
		}
		k := p.readNextIdentifier()
		v := ""
		p.skipBlank()
		c, err := p.at(p.idx)
		if err != nil {
			return nil, err
		}
		switch c {
		case '=':
			p.idx++
			p.skipBlank()
			v = p.readNextIdentifier()
		case ',', ')':
		default:
			return nil, p.syntaxError(fmt.Sprintf("unexpected character '%c'", c))
		}
		m[k] = v
	}
	return nil, p.endOfString()
}

// typeParameters is TypeParser.getTypeParameters.
func (p *typeParser) typeParameters() ([]Comparator, error) {
	var list []Comparator
	p.idx++ // '('
	for p.skipBlankAndComma() {
		if p.s[p.idx] == ')' {
			p.idx++
			return list, nil
		}
		t, err := p.parse()
		if err != nil {
			return nil, err
		}
		list = append(list, t)
	}
	return nil, p.endOfString()
}

// alias is one DynamicCompositeType alias in the order it was declared.
type alias struct {
	b byte
	t Comparator
}

// aliasParameters is TypeParser.getAliasParameters. A repeated alias keeps
// its first place and takes its last type, as in a Java HashMap.
func (p *typeParser) aliasParameters() ([]alias, error) {
	var list []alias
	p.idx++ // '('
	for p.skipBlankAndComma() {
		if p.s[p.idx] == ')' {
			p.idx++
			return list, nil
		}
		a := p.readNextIdentifier()
		if len([]rune(a)) != 1 {
			return nil, p.syntaxError("An alias should be a single character")
		}
		p.skipBlank()
		if c, _ := p.at(p.idx); c != '=' {
			return nil, p.syntaxError("expecting '=>' token")
		}
		if c, _ := p.at(p.idx + 1); c != '>' {
			return nil, p.syntaxError("expecting '=>' token")
		}
		p.idx += 2
		p.skipBlank()
		t, err := p.parse()
		if err != nil {
			return nil, err
		}
		replaced := false
		for i := range list {
			if list[i].b == a[0] {
				list[i].t, replaced = t, true
			}
		}
		if !replaced {
			list = append(list, alias{a[0], t})
		}
	}
	return nil, p.endOfString()
}

func (p *typeParser) eos() bool { return p.idx >= len(p.s) }

func (p *typeParser) skipBlank() { p.idx = skipBlank(p.s, p.idx) }

// skipBlankAndComma skips blanks and at most one comma, and reports
// whether anything is left.
func (p *typeParser) skipBlankAndComma() bool {
	comma := false
	for !p.eos() {
		c := p.s[p.idx]
		if c == ',' {
			if comma {
				return true
			}
			comma = true
		} else if !isBlank(c) {
			return true
		}
		p.idx++
	}
	return false
}

func (p *typeParser) readNextIdentifier() string {
	i := p.idx
	for !p.eos() && isIdentifierChar(p.s[p.idx]) {
		p.idx++
	}
	return string(p.s[i:p.idx])
}

func isBlank(c rune) bool { return c == ' ' || c == '\t' || c == '\n' }

func skipBlank(s []rune, i int) int {
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	return i
}

func isIdentifierChar(c rune) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' ||
		c == '-' || c == '+' || c == '.' || c == '_' || c == '&'
}
