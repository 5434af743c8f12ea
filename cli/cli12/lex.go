package cli12

import (
	"fmt"
	"strings"
	"unicode"
)

// tokKind is the lexical class of a token of cassandra-cli 1.2's grammar.
type tokKind int

const (
	tIdent  tokKind = iota // Identifier: a letter or digit, then letters, digits, '_' and '-'
	tString                // StringLiteral, kept with its quotes
	tInt                   // IntegerPositiveLiteral
	tNegInt                // IntegerNegativeLiteral
	tDouble                // DoubleLiteral with a fraction
	tPunct                 // [ ] ( ) { } : , = ; ? . / > < >= <=
	tEOF
)

type token struct {
	kind tokKind
	text string
	pos  int
}

// lex splits one statement into tokens. Comments (-- to the end of the
// line, /* ... */) and blanks are dropped.
func lex(s string) ([]token, error) {
	var toks []token
	r := []rune(s)
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '-' && i+1 < len(r) && r[i+1] == '-':
			for i < len(r) && r[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(r) && r[i+1] == '*':
			end := strings.Index(string(r[i+2:]), "*/")
			if end < 0 {
				return nil, fmt.Errorf("Syntax error at position %d: unterminated comment", i)
			}
			i += 2 + len([]rune(string(r[i+2:])[:end])) + 2
		case c == '\'':
			j := i + 1
			for j < len(r) && r[j] != '\'' {
				if r[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(r) {
				return nil, fmt.Errorf("Syntax error at position %d: mismatched character '<EOF>' expecting '''", len(r))
			}
			toks = append(toks, token{tString, string(r[i : j+1]), i})
			i = j + 1
		case c == '-' && i+1 < len(r) && isDigit(r[i+1]):
			j := i + 1
			for j < len(r) && isDigit(r[j]) {
				j++
			}
			toks = append(toks, token{tNegInt, string(r[i:j]), i})
			i = j
		case isAlnum(c):
			j := i
			for j < len(r) && isDigit(r[j]) {
				j++
			}
			if j < len(r) && r[j] == '.' && j+1 < len(r) && isDigit(r[j+1]) && j > i && allDigits(r[i:j]) {
				k := j + 1
				for k < len(r) && isDigit(r[k]) {
					k++
				}
				toks = append(toks, token{tDouble, string(r[i:k]), i})
				i = k
				continue
			}
			j = i
			for j < len(r) && (isAlnum(r[j]) || r[j] == '_' || r[j] == '-') {
				j++
			}
			kind := tIdent
			if allDigits(r[i:j]) {
				kind = tInt
			}
			toks = append(toks, token{kind, string(r[i:j]), i})
			i = j
		case (c == '>' || c == '<') && i+1 < len(r) && r[i+1] == '=':
			toks = append(toks, token{tPunct, string(r[i : i+2]), i})
			i += 2
		case strings.ContainsRune("[](){}:,=;?./<>", c):
			toks = append(toks, token{tPunct, string(c), i})
			i++
		default:
			return nil, fmt.Errorf("Syntax error at position %d: unexpected %q", i, string(c))
		}
	}
	return append(toks, token{kind: tEOF, pos: len(r)}), nil
}

func isDigit(c rune) bool { return c >= '0' && c <= '9' }
func isAlnum(c rune) bool {
	return c < 128 && (unicode.IsLetter(c) || isDigit(c))
}
func allDigits(r []rune) bool {
	for _, c := range r {
		if !isDigit(c) {
			return false
		}
	}
	return len(r) > 0
}

// unescape is CliUtils.unescapeSQLString: drop surrounding quotes, then
// undo Java escapes (\n, \t, \', \\, \uXXXX, octal).
func unescape(s string) string {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		s = s[1 : len(s)-1]
	}
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	r := []rune(s)
	for i := 0; i < len(r); i++ {
		if r[i] != '\\' || i+1 >= len(r) {
			b.WriteRune(r[i])
			continue
		}
		i++
		switch r[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+4 < len(r) {
				var v rune
				if _, err := fmt.Sscanf(string(r[i+1:i+5]), "%04x", &v); err == nil {
					b.WriteRune(v)
					i += 4
					continue
				}
			}
			b.WriteRune('u')
		default:
			if r[i] >= '0' && r[i] <= '7' {
				v, n := 0, 0
				for n < 3 && i+n < len(r) && r[i+n] >= '0' && r[i+n] <= '7' && v*8+int(r[i+n]-'0') <= 0377 {
					v = v*8 + int(r[i+n]-'0')
					n++
				}
				b.WriteRune(rune(v))
				i += n - 1
				continue
			}
			b.WriteRune(r[i])
		}
	}
	return b.String()
}

// escape is CliUtils.escapeSQLString: Java escapes, and ' as \'.
func escape(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch c {
		case '\\':
			b.WriteString(`\\`)
		case '"':
			b.WriteString(`\"`)
		case '\'':
			b.WriteString(`\'`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if c < 32 || c > 0x7f {
				fmt.Fprintf(&b, `\u%04X`, c)
			} else {
				b.WriteRune(c)
			}
		}
	}
	return b.String()
}

// maybeEscapeName quotes a name that does not start with a letter.
func maybeEscapeName(name string) string {
	if name != "" && unicode.IsLetter([]rune(name)[0]) {
		return name
	}
	return "'" + name + "'"
}
