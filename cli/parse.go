package cli

import (
	"strconv"
	"strings"
)

// Parse reads a script: statements separated by ';' or newlines. It
// parses the whole input before anything runs, so a script with a
// syntax error anywhere does nothing. Errors are *SyntaxError.
//
// The grammar (keywords are case-insensitive; names of keyspaces and
// column families are not):
//
//	script    = [stmt] { (";" | newline) [stmt] }
//	stmt      = "help" | "?" | "quit" | "exit"
//	          | "connect" host "/" port
//	          | "use" keyspace
//	          | "show" ("keyspaces" | "cluster" "name" | "api" "version" | "config" "file")
//	          | "describe" "keyspace" [keyspace]
//	          | "get" path ["[" [name] ":" [name] "]"] {"limit" number | "reversed"}
//	          | "set" path "=" value
//	          | "del" path
//	          | "count" path
//	path      = [keyspace "."] columnfamily "[" string "]" ["[" name "]" ["[" name "]"]]
//	name      = string | number | uuid | hex | func
//	value     = string | uuid | hex | func
//	func      = "long" "(" (number | string) ")" | "timeuuid" "(" ")" | "lexicaluuid" "(" ")"
//	string    = "'" { char | "\'" | "''" | "\\" | "\"" | "\n" | "\r" | "\t" | "\0" | "\xHH" } "'"
//	hex       = "0x" { hexdigit }
//	uuid      = 8-4-4-4-12 hex digits, unquoted
//	comment   = ("#" | "--") to the end of the line
func Parse(src string) ([]Statement, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &parser{src: src, toks: toks}
	var out []Statement
	for {
		for p.peek().kind == tEnd {
			p.next()
		}
		if p.peek().kind == tEOF {
			return out, nil
		}
		s, err := p.statement()
		if err != nil {
			return nil, err
		}
		if t := p.peek(); t.kind != tEnd && t.kind != tEOF {
			return nil, p.errAt(t, "expected ';' or the end of the line after the statement, found %s", t.describe())
		}
		out = append(out, s)
	}
}

type parser struct {
	src  string
	toks []token
	i    int
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tEOF {
		p.i++
	}
	return t
}

func (p *parser) errAt(t token, format string, args ...any) *SyntaxError {
	return syntaxErr(p.src, t.pos, format, args...)
}

// isKeyword reports whether t is the keyword kw, in any case.
func isKeyword(t token, kw string) bool {
	return t.kind == tIdent && strings.EqualFold(t.text, kw)
}

func (p *parser) keyword(kw string) error {
	t := p.next()
	if !isKeyword(t, kw) {
		return p.errAt(t, "expected %q, found %s", kw, t.describe())
	}
	return nil
}

func (p *parser) punct(c string) error {
	t := p.next()
	if t.kind != tPunct || t.text != c {
		return p.errAt(t, "expected '%s', found %s", c, t.describe())
	}
	return nil
}

func (p *parser) isPunct(c string) bool {
	t := p.peek()
	return t.kind == tPunct && t.text == c
}

func (p *parser) ident(what string) (string, error) {
	t := p.next()
	if t.kind != tIdent {
		return "", p.errAt(t, "expected %s, found %s", what, t.describe())
	}
	return t.text, nil
}

func (p *parser) statement() (Statement, error) {
	t := p.next()
	if t.kind == tPunct && t.text == "?" {
		return Help{}, nil
	}
	if t.kind != tIdent {
		return nil, p.errAt(t, "expected a command (type 'help' for the list), found %s", t.describe())
	}
	switch strings.ToLower(t.text) {
	case "help":
		return Help{}, nil
	case "quit", "exit":
		return Quit{}, nil
	case "connect":
		return p.connect()
	case "use":
		ks, err := p.ident("a keyspace name")
		return Use{Keyspace: ks}, err
	case "show":
		return p.show()
	case "describe":
		if err := p.keyword("keyspace"); err != nil {
			return nil, err
		}
		if p.peek().kind == tIdent {
			return Describe{Keyspace: p.next().text}, nil
		}
		return Describe{}, nil
	case "get":
		return p.get()
	case "set":
		path, _, err := p.path(false)
		if err != nil {
			return nil, err
		}
		if err := p.punct("="); err != nil {
			return nil, err
		}
		v, err := p.literal("a value")
		if err != nil {
			return nil, err
		}
		if v.Kind == LitNumber {
			return nil, syntaxErr(p.src, v.Pos, "a value is text, bytes or a typed literal: write '%s' for text or long(%s) for a 64-bit integer", v.Text, v.Text)
		}
		return Set{Path: path, Value: v}, nil
	case "del":
		path, _, err := p.path(false)
		return Del{Path: path}, err
	case "count":
		path, _, err := p.path(false)
		return Count{Path: path}, err
	}
	return nil, p.errAt(t, "unknown command %q (type 'help' for the list)", t.text)
}

// connect reads host "/" port. The host is the tokens up to '/', which
// must touch each other: 127.0.0.1, db-1.example.com, localhost.
func (p *parser) connect() (Statement, error) {
	var host strings.Builder
	first := p.peek()
	end := first.pos
	for {
		t := p.peek()
		if t.kind == tPunct && t.text == "/" {
			break
		}
		if t.kind != tIdent && t.kind != tNumber && !(t.kind == tPunct && (t.text == "." || t.text == ":")) {
			if host.Len() == 0 {
				return nil, p.errAt(t, "expected connect <host>/<port>, found %s", t.describe())
			}
			return nil, p.errAt(t, "expected '/' and a port after the host, found %s", t.describe())
		}
		if host.Len() > 0 && t.pos != end {
			return nil, p.errAt(t, "a host name has no spaces; expected '/' and a port")
		}
		p.next()
		host.WriteString(t.text)
		end = t.pos + len(t.text)
	}
	if host.Len() == 0 {
		return nil, p.errAt(first, "expected connect <host>/<port>, found %s", first.describe())
	}
	p.next() // '/'
	t := p.next()
	port, err := strconv.Atoi(t.text)
	if t.kind != tNumber || err != nil || port < 1 || port > 65535 {
		return nil, p.errAt(t, "expected a port number (1-65535), found %s", t.describe())
	}
	return Connect{Host: host.String(), Port: port}, nil
}

func (p *parser) show() (Statement, error) {
	t := p.next()
	pairs := map[string]string{"cluster": "name", "api": "version", "config": "file"}
	switch {
	case isKeyword(t, "keyspaces"):
		return Show{What: ShowKeyspaces}, nil
	case t.kind == tIdent && pairs[strings.ToLower(t.text)] != "":
		w := strings.ToLower(t.text)
		if err := p.keyword(pairs[w]); err != nil {
			return nil, err
		}
		return Show{What: w + " " + pairs[w]}, nil
	}
	return nil, p.errAt(t, "expected show keyspaces, show cluster name, show api version or show config file; found %s", t.describe())
}

func (p *parser) get() (Statement, error) {
	path, rng, err := p.path(true)
	if err != nil {
		return nil, err
	}
	g := Get{Path: path, Range: rng}
	for {
		t := p.peek()
		switch {
		case isKeyword(t, "limit"):
			p.next()
			n := p.next()
			v, err := strconv.Atoi(n.text)
			if n.kind != tNumber || err != nil || v < 1 || v > 1<<31-1 {
				return nil, p.errAt(n, "expected a count from 1 to 2147483647 after limit, found %s", n.describe())
			}
			g.Limit = v
		case isKeyword(t, "reversed"):
			p.next()
			g.Reversed = true
		default:
			return g, nil
		}
	}
}

// path reads [keyspace "."] cf "['key']" and up to two names; when
// allowRange, the last bracket may instead hold a range.
func (p *parser) path(allowRange bool) (Path, *Range, error) {
	var path Path
	name, err := p.ident("a column family (or keyspace.columnfamily)")
	if err != nil {
		return path, nil, err
	}
	if p.isPunct(".") {
		p.next()
		path.Keyspace = name
		if name, err = p.ident("a column family name after '" + name + ".'"); err != nil {
			return path, nil, err
		}
	}
	path.ColumnFamily = name
	if err := p.punct("["); err != nil {
		return path, nil, err
	}
	k := p.next()
	if k.kind != tString {
		return path, nil, p.errAt(k, "expected the row key as a quoted string, e.g. ['jsmith'], found %s", k.describe())
	}
	path.Key = k.text
	if err := p.punct("]"); err != nil {
		return path, nil, err
	}
	for p.isPunct("[") {
		open := p.next()
		var lit *Literal
		if !p.isPunct(":") {
			l, err := p.literal("a column name")
			if err != nil {
				return path, nil, err
			}
			lit = &l
		}
		if p.isPunct(":") {
			p.next()
			if !allowRange {
				return path, nil, p.errAt(open, "a range [start:finish] is for get only")
			}
			rng := &Range{Start: lit}
			if !p.isPunct("]") {
				l, err := p.literal("the end of the range")
				if err != nil {
					return path, nil, err
				}
				rng.Finish = &l
			}
			if err := p.punct("]"); err != nil {
				return path, nil, err
			}
			if p.isPunct("[") {
				return path, nil, p.errAt(p.peek(), "the range must be the last bracket")
			}
			return path, rng, nil
		}
		if err := p.punct("]"); err != nil {
			return path, nil, err
		}
		if len(path.Names) == 2 {
			return path, nil, p.errAt(open, "too many names: a path is ['key'], ['key']['column'] or ['key']['super']['column']")
		}
		path.Names = append(path.Names, *lit)
	}
	return path, nil, nil
}

func (p *parser) literal(what string) (Literal, error) {
	t := p.next()
	switch t.kind {
	case tString:
		return Literal{Kind: LitString, Text: t.text, Pos: t.pos}, nil
	case tNumber:
		if _, err := strconv.ParseInt(t.text, 10, 64); err != nil {
			return Literal{}, p.errAt(t, "%s does not fit in a 64-bit integer", t.text)
		}
		return Literal{Kind: LitNumber, Text: t.text, Pos: t.pos}, nil
	case tUUID:
		return Literal{Kind: LitUUID, Text: strings.ToLower(t.text), Pos: t.pos}, nil
	case tHex:
		if len(t.text)%2 != 0 {
			return Literal{}, p.errAt(t, "a hex literal needs an even number of digits")
		}
		return Literal{Kind: LitHex, Text: strings.ToLower(t.text), Pos: t.pos}, nil
	case tIdent:
		return p.function(t)
	}
	return Literal{}, p.errAt(t, "expected %s ('text', a number, a UUID, 0xHEX, long(N), timeuuid() or lexicaluuid()), found %s", what, t.describe())
}

func (p *parser) function(t token) (Literal, error) {
	name := strings.ToLower(t.text)
	if !p.isPunct("(") {
		return Literal{}, p.errAt(t, "expected a quoted string or a typed literal, found %s (quote text: '%s')", t.describe(), t.text)
	}
	p.next()
	lit := Literal{Kind: LitFunc, Text: name, Pos: t.pos}
	switch name {
	case "timeuuid", "lexicaluuid":
	case "long":
		a := p.next()
		if a.kind != tNumber && a.kind != tString {
			return Literal{}, p.errAt(a, "long() takes a number, found %s", a.describe())
		}
		if _, err := strconv.ParseInt(a.text, 10, 64); err != nil {
			return Literal{}, p.errAt(a, "long(%s): not a 64-bit integer", a.describe())
		}
		lit.Arg = &Literal{Kind: LitNumber, Text: a.text, Pos: a.pos}
	default:
		return Literal{}, p.errAt(t, "unknown function %s() (known: long(N), timeuuid(), lexicaluuid())", t.text)
	}
	if err := p.punct(")"); err != nil {
		return Literal{}, err
	}
	return lit, nil
}
