package cli

import (
	"fmt"
	"strings"
)

// tokKind is the class of a token.
type tokKind int

const (
	tEnd    tokKind = iota // end of a statement: ';', a newline, or the end of input
	tEOF                   // end of input (always the last token)
	tIdent                 // letters, digits, '_' and '-', starting with a letter or '_'
	tNumber                // an optional '-' and decimal digits
	tString                // a single-quoted string; text is the unescaped value
	tHex                   // 0x and hex digits; text is the digits
	tUUID                  // an unquoted 8-4-4-4-12 hex UUID
	tPunct                 // one of . [ ] = : / ( ) ? ,
)

func (k tokKind) String() string {
	switch k {
	case tEnd:
		return "end of statement"
	case tEOF:
		return "end of input"
	case tIdent:
		return "name"
	case tNumber:
		return "number"
	case tString:
		return "quoted string"
	case tHex:
		return "hex literal"
	case tUUID:
		return "UUID"
	}
	return "punctuation"
}

// token is one lexical token; pos is the byte offset of its first
// character in the input.
type token struct {
	kind tokKind
	text string
	pos  int
}

// describe names a token for an error message.
func (t token) describe() string {
	switch t.kind {
	case tEnd, tEOF:
		return t.kind.String()
	case tString:
		return fmt.Sprintf("'%s'", escapeString(t.text))
	case tHex:
		return "0x" + t.text
	}
	return fmt.Sprintf("%q", t.text)
}

// SyntaxError is input the parser refused. Pos is a byte offset into the
// input; Line and Col (both from 1) locate it for people.
type SyntaxError struct {
	Pos, Line, Col int
	Msg            string
}

func (e *SyntaxError) Error() string {
	if e.Line > 1 {
		return fmt.Sprintf("syntax error at line %d, column %d: %s", e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("syntax error at column %d: %s", e.Col, e.Msg)
}

func syntaxErr(src string, pos int, format string, args ...any) *SyntaxError {
	if pos > len(src) {
		pos = len(src)
	}
	line := 1 + strings.Count(src[:pos], "\n")
	col := pos - strings.LastIndexByte(src[:pos], '\n')
	return &SyntaxError{Pos: pos, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// lex splits src into tokens. Comments run from '#' or '--' to the end
// of the line. Newlines and ';' both end a statement.
func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n' || c == ';':
			toks = append(toks, token{tEnd, string(c), i})
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '#' || (c == '-' && i+1 < len(src) && src[i+1] == '-'):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '\'':
			s, n, err := lexString(src, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tString, s, i})
			i = n
		case isUUIDAt(src, i):
			toks = append(toks, token{tUUID, src[i : i+36], i})
			i += 36
		case c == '0' && i+1 < len(src) && (src[i+1] == 'x' || src[i+1] == 'X'):
			j := i + 2
			for j < len(src) && isHex(src[j]) {
				j++
			}
			if j < len(src) && isWordByte(src[j]) {
				return nil, syntaxErr(src, j, "bad character %q in hex literal", src[j])
			}
			toks = append(toks, token{tHex, src[i+2 : j], i})
			i = j
		case isDigit(c) || (c == '-' && i+1 < len(src) && isDigit(src[i+1])):
			j := i + 1
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			toks = append(toks, token{tNumber, src[i:j], i})
			i = j
		case isLetter(c) || c == '_':
			j := i + 1
			for j < len(src) && isWordByte(src[j]) {
				j++
			}
			toks = append(toks, token{tIdent, src[i:j], i})
			i = j
		case strings.IndexByte(".[]=:/()?,", c) >= 0:
			toks = append(toks, token{tPunct, string(c), i})
			i++
		case c == '"':
			return nil, syntaxErr(src, i, "strings are quoted with ' (single quotes), not \"")
		default:
			return nil, syntaxErr(src, i, "unexpected character %q", rune(src[i]))
		}
	}
	return append(toks, token{tEOF, "", len(src)}), nil
}

// lexString reads the single-quoted string starting at src[start] and
// returns its value and the offset just past the closing quote. Escapes:
// a backslash or a second quote before a quote, \" \\ \n \r \t \0, and
// \xHH for one byte.
func lexString(src string, start int) (string, int, error) {
	var b strings.Builder
	i := start + 1
	for i < len(src) {
		c := src[i]
		switch c {
		case '\'':
			if i+1 < len(src) && src[i+1] == '\'' {
				b.WriteByte('\'') // SQL's doubled quote
				i += 2
				continue
			}
			return b.String(), i + 1, nil
		case '\n':
			return "", 0, syntaxErr(src, start, "unterminated string (write a newline inside a string as \\n)")
		case '\\':
			if i+1 >= len(src) {
				return "", 0, syntaxErr(src, start, "unterminated string")
			}
			e := src[i+1]
			switch e {
			case '\'', '"', '\\':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case '0':
				b.WriteByte(0)
			case 'x':
				if i+3 >= len(src) || !isHex(src[i+2]) || !isHex(src[i+3]) {
					return "", 0, syntaxErr(src, i, "\\x needs two hex digits")
				}
				b.WriteByte(unhex(src[i+2])<<4 | unhex(src[i+3]))
				i += 2
			default:
				return "", 0, syntaxErr(src, i, "unknown escape \\%c (known: \\' \\\" \\\\ \\n \\r \\t \\0 \\xHH)", e)
			}
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, syntaxErr(src, start, "unterminated string")
}

// escapeString is the inverse of lexString's unescaping, for echoing a
// string back inside single quotes.
func escapeString(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\x%02x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	return b.String()
}

// isUUIDAt reports whether an unquoted 8-4-4-4-12 UUID starts at src[i]
// and is not followed by more of a word.
func isUUIDAt(src string, i int) bool {
	if i+36 > len(src) {
		return false
	}
	for j := 0; j < 36; j++ {
		c := src[i+j]
		if j == 8 || j == 13 || j == 18 || j == 23 {
			if c != '-' {
				return false
			}
		} else if !isHex(c) {
			return false
		}
	}
	return i+36 == len(src) || !isWordByte(src[i+36])
}

func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isLetter(c byte) bool   { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
func isWordByte(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' || c == '-' }
func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func unhex(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}
