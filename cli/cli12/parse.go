package cli12

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// parser walks the tokens of one statement.
type parser struct {
	toks []token
	i    int
	src  string
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// is reports whether the next token is the keyword or punctuation w.
func (p *parser) is(w string) bool {
	t := p.peek()
	return (t.kind == tIdent || t.kind == tPunct) && strings.EqualFold(t.text, w)
}

// accept consumes the keyword or punctuation w if it is next.
func (p *parser) accept(w string) bool {
	if p.is(w) {
		p.i++
		return true
	}
	return false
}

func (p *parser) errAt(t token, what string) error {
	if t.kind == tEOF {
		return fmt.Errorf("Syntax error at position %d: missing %s at '<EOF>'", t.pos, what)
	}
	return fmt.Errorf("Syntax error at position %d: mismatched input '%s' expecting %s", t.pos, t.text, what)
}

// literals are the words the grammar spells as quoted literals, which
// ANTLR's messages quote.
var literals = map[string]bool{"AS": true, "LIMIT": true, "WHERE": true, "COLUMNS": true, "REVERSED": true, "CLUSTER": true, "AND": true}

// expect consumes w, or fails as ANTLR reports a missing token:
// "missing ']' at ';'".
func (p *parser) expect(w string) error {
	if p.accept(w) {
		return nil
	}
	t := p.peek()
	found := t.text
	if t.kind == tEOF {
		found = "<EOF>"
	}
	want := strings.ToUpper(w)
	if len(w) == 1 || literals[want] {
		want = "'" + want + "'"
	}
	return fmt.Errorf("Syntax error at position %d: missing %s at '%s'", t.pos, want, found)
}

// end checks that the statement is over (an optional ';').
func (p *parser) end() error {
	if t := p.peek(); t.kind != tEOF && !p.is(";") {
		return fmt.Errorf("Syntax error at position %d: extraneous input '%s' expecting ';'", t.pos, t.text)
	}
	p.accept(";")
	if t := p.peek(); t.kind != tEOF {
		return fmt.Errorf("Syntax error at position %d: extraneous input '%s'", t.pos, t.text)
	}
	return nil
}

// entity reads an entityName: an identifier, string or integer.
func (p *parser) entity() (string, error) {
	t := p.peek()
	switch t.kind {
	case tIdent, tInt, tNegInt:
		p.i++
		return t.text, nil
	case tString:
		p.i++
		return unescape(t.text), nil
	}
	found := t.text
	if t.kind == tEOF {
		found = "<EOF>"
	}
	return "", fmt.Errorf("Syntax error at position %d: mismatched input '%s' expecting set null", t.pos, found)
}

// term is a row key, a column name or a value: a literal or a typed
// function call.
type term struct {
	text string // unescaped literal, or the function's argument
	fn   string // function name, "" for a literal
	call bool
}

func (p *parser) term() (term, error) {
	t := p.peek()
	switch t.kind {
	case tIdent:
		p.i++
		if p.accept("(") {
			var arg string
			if a := p.peek(); a.kind == tIdent || a.kind == tString || a.kind == tInt || a.kind == tNegInt {
				p.i++
				arg = unescape(a.text)
			}
			if err := p.expect(")"); err != nil {
				return term{}, err
			}
			return term{text: arg, fn: t.text, call: true}, nil
		}
		return term{text: t.text}, nil
	case tInt, tNegInt:
		p.i++
		return term{text: t.text}, nil
	case tString:
		p.i++
		return term{text: unescape(t.text)}, nil
	}
	return term{}, p.errAt(t, "a value")
}

// cfExpr is columnFamilyExpr: cf['key']['col']['sub'].
type cfExpr struct {
	cf   string
	key  term
	cols []term
}

func (p *parser) cfExpr() (cfExpr, error) {
	var e cfExpr
	var err error
	if e.cf, err = p.entity(); err != nil {
		return e, err
	}
	if err := p.expect("["); err != nil {
		return e, err
	}
	if e.key, err = p.term(); err != nil {
		return e, err
	}
	if err := p.expect("]"); err != nil {
		return e, err
	}
	for len(e.cols) < 2 && p.accept("[") {
		c, err := p.term()
		if err != nil {
			return e, err
		}
		if err := p.expect("]"); err != nil {
			return e, err
		}
		e.cols = append(e.cols, c)
	}
	return e, nil
}

// attrValue is the value of a schema attribute: a scalar (raw token
// text), a hash or an array of hashes.
type attrValue struct {
	raw   string
	kind  tokKind
	hash  []pair
	array [][]pair
	isArr bool
	isMap bool
}

type pair struct {
	key string
	val attrValue
}

func (v attrValue) str() string { return unescape(v.raw) }

func (p *parser) attrValue() (attrValue, error) {
	t := p.peek()
	switch {
	case p.is("["):
		p.i++
		v := attrValue{isArr: true, raw: "ARRAY"}
		for !p.is("]") {
			if !p.is("{") {
				return v, p.errAt(p.peek(), "']'")
			}
			h, err := p.hash()
			if err != nil {
				return v, err
			}
			v.array = append(v.array, h)
			p.accept(",")
		}
		p.i++
		return v, nil
	case p.is("{"):
		h, err := p.hash()
		return attrValue{isMap: true, hash: h, raw: "HASH"}, err
	case t.kind == tIdent || t.kind == tString || t.kind == tInt || t.kind == tNegInt || t.kind == tDouble:
		p.i++
		return attrValue{raw: t.text, kind: t.kind}, nil
	}
	return attrValue{}, p.errAt(t, "a value")
}

func (p *parser) hash() ([]pair, error) {
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	var h []pair
	for {
		k := p.next()
		if k.kind != tIdent && k.kind != tString && k.kind != tInt && k.kind != tNegInt {
			return nil, p.errAt(k, "a key")
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		var v attrValue
		var err error
		if p.is("{") {
			v, err = p.attrValue()
		} else {
			t := p.next()
			if t.kind == tEOF || t.kind == tPunct {
				return nil, p.errAt(t, "a value")
			}
			v = attrValue{raw: t.text, kind: t.kind}
		}
		if err != nil {
			return nil, err
		}
		h = append(h, pair{unescape(k.text), v})
		if !p.accept(",") {
			break
		}
	}
	return h, p.expect("}")
}

// attrs reads keyValuePairExpr after the entity name: (with|and) name = value ...
func (p *parser) attrs() ([]pair, error) {
	var out []pair
	for p.accept("with") || p.accept("and") {
		n := p.next()
		if n.kind != tIdent {
			return nil, p.errAt(n, "an attribute name")
		}
		if err := p.expect("="); err != nil {
			return nil, err
		}
		v, err := p.attrValue()
		if err != nil {
			return nil, err
		}
		out = append(out, pair{n.text, v})
	}
	return out, nil
}

// intClause parses an optional clause of a keyword and an
// IntegerPositiveLiteral (LIMIT n, COLUMNS n): the number's token, and
// whether the clause was there.
func (p *parser) intClause(keyword string) (token, bool, error) {
	if !p.accept(keyword) {
		return token{}, false, nil
	}
	t := p.next()
	if t.kind != tInt {
		return t, true, p.errAt(t, "IntegerPositiveLiteral")
	}
	return t, true, nil
}

// limit parses GET's optional LIMIT clause: n, at most MaxInt32, or def
// without one; LIMIT 0 is refused as 1.2's grammar refuses it.
func (p *parser) limit(def int32) (int32, error) {
	t, ok, err := p.intClause("limit")
	if err != nil || !ok {
		return def, err
	}
	n, err := strconv.Atoi(t.text)
	if err != nil {
		return 0, p.errAt(t, "IntegerPositiveLiteral")
	}
	if n == 0 {
		return 0, errors.New("LIMIT should be greater than zero.")
	}
	return int32(min(n, math.MaxInt32)), nil
}
