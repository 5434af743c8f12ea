package sstablejson

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
)

// Recovering a row key: a key is JSON or, in files that wrote it as it
// was, raw (the Keys mode); keyEnd's heuristics look ahead for the
// closing quote after which the rest of the row reads.

// keyWindow is how far past a key's opening quote its end is looked for:
// a key's longest escaped form (6 bytes per byte) and what follows it.
// Looking no further keeps the look-ahead from refilling the buffer at
// every row.
const keyWindow = 6*MaxKeyLength + 4096

// readKey reads a row key at the reader's position (an opening quote).
func (r *Reader) readKey() (string, error) {
	line, col := r.line, r.col
	c, err := r.readByte()
	if err != nil {
		return "", err
	}
	if c != '"' {
		return "", r.errAt(line, col, "expected a row key (a quoted string), found %q", c)
	}
	// Look ahead as far as the buffer allows: a key is at most 64 KiB and
	// 0.6 printed each row on one line.
	buf, err := r.br.Peek(min(r.br.Size(), keyWindow))
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return "", err
	}
	end, err := r.keyEnd(buf, line, col)
	if err != nil {
		return "", err
	}
	body := buf[:end.pos]
	var key string
	if end.json {
		quoted := make([]byte, 0, len(body)+2)
		quoted = append(append(append(quoted, '"'), body...), '"')
		if err := json.Unmarshal(quoted, &key); err != nil {
			return "", r.errAt(line, col, "row key: %v", err)
		}
	} else {
		key = string(body)
	}
	consumed := make([]byte, end.pos+1)
	copy(consumed, buf[:end.pos+1])
	r.br.Discard(end.pos + 1)
	r.advance(consumed)
	return key, nil
}

type keyEnd struct {
	pos  int // index of the closing quote in the look-ahead
	json bool
}

// keyEnd finds where the key starting at buf[0] ends. A closing quote is
// one followed by `:` and the row's opening bracket (for a super column
// family, `{` then `}` or a quoted hex name and `:`). In KeysAuto the key
// is read as JSON when its first unescaped quote is such a closing quote
// and no later one exists on that line; otherwise, and in KeysRaw, the
// line must hold exactly one closing quote.
func (r *Reader) keyEnd(buf []byte, line, col int) (keyEnd, error) {
	jsonEnd := -1
	if r.mode == KeysAuto {
		jsonEnd = jsonStringEnd(buf)
		if jsonEnd >= 0 && !r.closes(buf, jsonEnd) {
			if other := r.otherOpener(buf, jsonEnd); other != "" {
				return keyEnd{}, r.errAt(line, col, "%s", other)
			}
			jsonEnd = -1
		}
	}
	cands := r.candidates(buf)
	if jsonEnd >= 0 {
		later := 0
		for _, p := range cands {
			if p > jsonEnd {
				later = p
				break
			}
		}
		if later == 0 {
			return keyEnd{pos: jsonEnd, json: true}, nil
		}
		cands = []int{jsonEnd, later}
	}
	switch len(cands) {
	case 0:
		return keyEnd{}, r.errAt(line, col, "cannot find the end of the row key (a quote followed by ': %s')", r.opener())
	case 1:
		return keyEnd{pos: cands[0]}, nil
	}
	l1, c1 := position(buf, cands[0], line, col+1)
	l2, c2 := position(buf, cands[1], line, col+1)
	return keyEnd{}, r.errAt(line, col, "ambiguous row key: it may end at line %d column %d or at line %d column %d (0.6 wrote keys without escaping them); escape the key's quotes as \\\" to import this row", l1, c1, l2, c2)
}

// otherOpener says why a key whose quote at buf[i] is followed by the
// other kind of row is refused, or "" if it is not.
func (r *Reader) otherOpener(buf []byte, i int) string {
	j := skipSpace(buf, i+1)
	if j >= len(buf) || buf[j] != ':' {
		return ""
	}
	j = skipSpace(buf, j+1)
	switch {
	case j < len(buf) && !r.super && buf[j] == '{':
		return "the row is an object of super columns, but the column family is standard"
	case j < len(buf) && r.super && buf[j] == '[':
		return "the row is a list of columns, but the column family is super"
	}
	return ""
}

func (r *Reader) opener() string {
	if r.super {
		return "{"
	}
	return "["
}

// position is the line and column of buf[i], buf starting at line, col.
func position(buf []byte, i, line, col int) (int, int) {
	for _, c := range buf[:i] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

// candidates are the closing quotes in buf up to the end of the line of
// the first one (or, if none, of the first line longer than a key can
// be). A closing quote is followed by ':', so only colons are looked at:
// the column lists and super column objects that follow a key hold none
// that match.
func (r *Reader) candidates(buf []byte) []int {
	var cands []int
	end := len(buf)
	for from := 0; from < end; {
		c := bytes.IndexByte(buf[from:end], ':')
		if c < 0 {
			break
		}
		c += from
		if len(cands) == 0 || c > cands[len(cands)-1] {
			if nl := bytes.IndexByte(buf[from:c], '\n'); nl >= 0 && (len(cands) > 0 || from+nl > 6*MaxKeyLength) {
				break
			}
		}
		q := c - 1
		for q >= 0 && (buf[q] == ' ' || buf[q] == '\t' || buf[q] == '\r' || buf[q] == '\n') {
			q--
		}
		if q >= 0 && buf[q] == '"' && r.closes(buf, q) && (len(cands) == 0 || q > cands[len(cands)-1]) {
			cands = append(cands, q)
		}
		from = c + 1
	}
	return cands
}

// jsonStringEnd is the index of the first unescaped quote of buf if every
// escape before it is valid JSON and no control character precedes it,
// else -1.
func jsonStringEnd(buf []byte) int {
	for i := 0; i < len(buf); i++ {
		switch c := buf[i]; {
		case c == '"':
			return i
		case c < 0x20:
			return -1
		case c == '\\':
			if i+1 >= len(buf) {
				return -1
			}
			switch buf[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+6 > len(buf) {
					return -1
				}
				if _, err := hex.DecodeString(string(buf[i+2 : i+6])); err != nil {
					return -1
				}
				i += 5
			default:
				return -1
			}
		}
	}
	return -1
}

// closes reports whether the quote at buf[i] is followed by what follows
// a row key.
func (r *Reader) closes(buf []byte, i int) bool {
	j := skipSpace(buf, i+1)
	if j >= len(buf) || buf[j] != ':' {
		return false
	}
	j = skipSpace(buf, j+1)
	if j >= len(buf) {
		return false
	}
	if !r.super {
		return buf[j] == '['
	}
	if buf[j] != '{' {
		return false
	}
	j = skipSpace(buf, j+1)
	if j >= len(buf) {
		return false
	}
	if buf[j] == '}' {
		return true
	}
	if buf[j] != '"' {
		return false
	}
	j++
	for j < len(buf) && (buf[j] >= '0' && buf[j] <= '9' || buf[j] >= 'a' && buf[j] <= 'f' || buf[j] >= 'A' && buf[j] <= 'F') {
		j++
	}
	if j >= len(buf) {
		return true // a super column name longer than the look-ahead
	}
	if buf[j] != '"' {
		return false
	}
	j = skipSpace(buf, j+1)
	return j < len(buf) && buf[j] == ':'
}

func skipSpace(buf []byte, j int) int {
	for j < len(buf) && (buf[j] == ' ' || buf[j] == '\t' || buf[j] == '\r' || buf[j] == '\n') {
		j++
	}
	return j
}
