package config

import (
	"errors"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// property is one key=value pair of a properties file, with the line its
// logical line starts on.
type property struct {
	key, value string
	line       int
}

// parseProperties reads a file in java.util.Properties syntax, as
// Properties.load did in 0.6: '#' or '!' comment lines, blank lines, a
// key ending at the first unescaped '=', ':' or white space, backslash
// escapes (\t \n \r \f \uXXXX, and \c for any other c, e.g. "\ " for a
// space), and a line ending in an odd number of backslashes continued on
// the next, whose leading white space is dropped.
//
// Java read these files as ISO-8859-1. thriftd reads them as UTF-8 when
// they are valid UTF-8, and as ISO-8859-1 otherwise, so both a file written
// for 0.6 and one written with a UTF-8 editor mean what their author saw.
func parseProperties(data []byte) ([]property, error) {
	var text []rune
	if utf8.Valid(data) {
		text = []rune(string(data))
	} else {
		text = make([]rune, len(data))
		for i, b := range data {
			text[i] = rune(b)
		}
	}
	var props []property
	lr := lineReader{in: text, line: 1}
	for {
		ln, start, ok := lr.next()
		if !ok {
			return props, nil
		}
		key, value, err := splitProperty(ln)
		if err != nil {
			return nil, &Error{Element: "line " + strconv.Itoa(start), Msg: err.Error()}
		}
		props = append(props, property{key: key, value: value, line: start})
	}
}

// lineReader yields the logical lines of a properties file, following
// java.util.Properties.LineReader.
type lineReader struct {
	in   []rune
	pos  int
	line int // current physical line, 1-based
}

func isPropSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\f' }

// next returns the next logical line that is neither blank nor a comment,
// with continuations joined and leading white space removed, and the line
// number it starts on.
func (lr *lineReader) next() (text []rune, start int, ok bool) {
	for {
		// Skip leading white space and empty lines.
		for lr.pos < len(lr.in) && (isPropSpace(lr.in[lr.pos]) || lr.eol()) {
			lr.skip()
		}
		if lr.pos >= len(lr.in) {
			return nil, 0, false
		}
		start = lr.line
		comment := lr.in[lr.pos] == '#' || lr.in[lr.pos] == '!'
		var buf []rune
		backslash := false
		for {
			if lr.pos >= len(lr.in) {
				if backslash {
					buf = buf[:len(buf)-1]
				}
				break
			}
			if lr.eol() {
				lr.skip()
				if comment || !backslash {
					break
				}
				// Continuation: drop the backslash and the next line's
				// leading white space. A comment line is never continued.
				buf = buf[:len(buf)-1]
				backslash = false
				for lr.pos < len(lr.in) && isPropSpace(lr.in[lr.pos]) {
					lr.pos++
				}
				continue
			}
			c := lr.in[lr.pos]
			lr.pos++
			buf = append(buf, c)
			backslash = c == '\\' && !backslash
		}
		if !comment {
			return buf, start, true
		}
	}
}

func (lr *lineReader) eol() bool {
	return lr.in[lr.pos] == '\n' || lr.in[lr.pos] == '\r'
}

// skip moves past one character, counting a line end ("\n", "\r" or
// "\r\n") as one.
func (lr *lineReader) skip() {
	if lr.eol() {
		if lr.in[lr.pos] == '\r' && lr.pos+1 < len(lr.in) && lr.in[lr.pos+1] == '\n' {
			lr.pos++
		}
		lr.line++
	}
	lr.pos++
}

// splitProperty splits a logical line into its unescaped key and value,
// as Properties.load0 does.
func splitProperty(ln []rune) (key, value string, err error) {
	keyLen, valueStart := 0, len(ln)
	hasSep, backslash := false, false
	for ; keyLen < len(ln); keyLen++ {
		c := ln[keyLen]
		if !backslash && (c == '=' || c == ':') {
			valueStart, hasSep = keyLen+1, true
			break
		}
		if !backslash && isPropSpace(c) {
			valueStart = keyLen + 1
			break
		}
		backslash = c == '\\' && !backslash
	}
	for ; valueStart < len(ln); valueStart++ {
		c := ln[valueStart]
		if isPropSpace(c) {
			continue
		}
		if !hasSep && (c == '=' || c == ':') {
			hasSep = true
			continue
		}
		break
	}
	if key, err = unescapeProperty(ln[:keyLen]); err != nil {
		return "", "", err
	}
	if value, err = unescapeProperty(ln[valueStart:]); err != nil {
		return "", "", err
	}
	return key, value, nil
}

// unescapeProperty is Properties.loadConvert. \uXXXX escapes are UTF-16
// units, so a surrogate pair written as two escapes is one character.
func unescapeProperty(in []rune) (string, error) {
	out := make([]uint16, 0, len(in))
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c != '\\' || i+1 >= len(in) {
			out = utf16.AppendRune(out, c)
			continue
		}
		i++
		switch c = in[i]; c {
		case 'u':
			if i+5 > len(in) {
				return "", errMalformedEscape
			}
			var v uint16
			for _, h := range in[i+1 : i+5] {
				d := hexValue(h)
				if d < 0 {
					return "", errMalformedEscape
				}
				v = v<<4 | uint16(d)
			}
			i += 4
			out = append(out, v)
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'n':
			out = append(out, '\n')
		case 'f':
			out = append(out, '\f')
		default:
			out = utf16.AppendRune(out, c)
		}
	}
	return string(utf16.Decode(out)), nil
}

func hexValue(r rune) int {
	switch {
	case r >= '0' && r <= '9':
		return int(r - '0')
	case r >= 'a' && r <= 'f':
		return int(r-'a') + 10
	case r >= 'A' && r <= 'F':
		return int(r-'A') + 10
	}
	return -1
}

// errMalformedEscape is Java's IllegalArgumentException message.
var errMalformedEscape = errors.New("Malformed \\uxxxx encoding.")
