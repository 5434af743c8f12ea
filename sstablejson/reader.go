package sstablejson

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// KeyMode says how the Reader reads row keys.
type KeyMode int

const (
	// KeysAuto reads a key as JSON where the file is valid JSON at that
	// point and as 0.6's unescaped text where it is not (a raw `"` in the
	// key, or a backslash that is not a JSON escape). A key that could end
	// at more than one place on its line is refused.
	KeysAuto KeyMode = iota
	// KeysRaw reads every key as 0.6 printed it, unescaped: a backslash
	// is part of the key. Use it for files written by 0.6's sstable2json
	// whose keys hold backslashes.
	KeysRaw
)

// MaxKeyLength bounds a row key (0.6 wrote keys with a 2-byte length).
const MaxKeyLength = 65535

// SyntaxError is a file that does not read as the format, at a 1-based
// line and byte column.
type SyntaxError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Kind is what an Event is.
type Kind int

const (
	// RowStart opens a row: Event.Key is set.
	RowStart Kind = iota + 1
	// SuperStart opens a super column: Event.Name and Event.DeletedAt.
	SuperStart
	// ColumnItem is a column, or a subcolumn inside a super column.
	ColumnItem
	// SuperEnd closes the super column.
	SuperEnd
	// RowEnd closes the row.
	RowEnd
)

// Event is one step through a file. Byte slices are valid until the next
// call to Next.
type Event struct {
	Kind      Kind
	Key       string
	Name      []byte
	DeletedAt int64
	Column    Column
	// Line and Col locate the event's start in the file.
	Line, Col int
}

type state int

const (
	stStart state = iota
	stRowKey
	stItems
	stSubItems
	stAfterRow
	stDone
)

// Reader reads a file event by event, holding at most one value.
type Reader struct {
	br    *bufio.Reader
	file  string
	super bool
	mode  KeyMode

	line, col int
	st        state
	first     bool // no item read yet at this level
	n         int64
	name      []byte
	value     []byte
	scratch   []byte
	tok       []byte
}

// NewReader reads a file of a standard or super column family; file names
// it in errors.
func NewReader(r io.Reader, file string, super bool, mode KeyMode) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 1<<20), file: file, super: super, mode: mode, line: 1, col: 1}
}

// BytesRead is how many bytes of the file have been consumed.
func (r *Reader) BytesRead() int64 { return r.n }

func (r *Reader) errAt(line, col int, format string, args ...any) error {
	return &SyntaxError{File: r.file, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (r *Reader) errf(format string, args ...any) error {
	return r.errAt(r.line, r.col, format, args...)
}

// advance accounts for consumed bytes b.
func (r *Reader) advance(b []byte) {
	r.n += int64(len(b))
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		r.line += bytes.Count(b, []byte{'\n'})
		r.col = len(b) - i
		return
	}
	r.col += len(b)
}

func (r *Reader) readByte() (byte, error) {
	c, err := r.br.ReadByte()
	if err != nil {
		if err == io.EOF {
			return 0, r.errf("unexpected end of file")
		}
		return 0, err
	}
	r.advance([]byte{c})
	return c, nil
}

// peek skips whitespace and returns the next byte without consuming it.
func (r *Reader) peek() (byte, error) {
	for {
		c, err := r.br.ReadByte()
		if err != nil {
			if err == io.EOF {
				return 0, r.errf("unexpected end of file")
			}
			return 0, err
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			r.advance([]byte{c})
			continue
		}
		r.br.UnreadByte()
		return c, nil
	}
}

func (r *Reader) expect(want byte) error {
	c, err := r.peek()
	if err != nil {
		return err
	}
	if c != want {
		return r.errf("expected %q, found %q", want, c)
	}
	_, err = r.readByte()
	return err
}

// Next returns the next event, or io.EOF after the file's closing brace.
func (r *Reader) Next() (Event, error) {
	for {
		switch r.st {
		case stStart:
			if err := r.expect('{'); err != nil {
				return Event{}, err
			}
			c, err := r.peek()
			if err != nil {
				return Event{}, err
			}
			if c == '}' {
				r.readByte()
				r.st = stDone
				if err := r.trailing(); err != nil {
					return Event{}, err
				}
				continue
			}
			r.st = stRowKey
		case stRowKey:
			if _, err := r.peek(); err != nil {
				return Event{}, err
			}
			ev := Event{Kind: RowStart, Line: r.line, Col: r.col}
			key, err := r.readKey()
			if err != nil {
				return Event{}, err
			}
			if err := r.expect(':'); err != nil {
				return Event{}, err
			}
			open := byte('[')
			if r.super {
				open = '{'
			}
			if err := r.expect(open); err != nil {
				if r.super {
					return Event{}, fmt.Errorf("%w (a super column family's row is an object of super columns)", err)
				}
				return Event{}, fmt.Errorf("%w (a standard column family's row is a list of columns)", err)
			}
			ev.Key = key
			r.st, r.first = stItems, true
			return ev, nil
		case stItems:
			c, err := r.peek()
			if err != nil {
				return Event{}, err
			}
			if (!r.super && c == ']') || (r.super && c == '}') {
				ev := Event{Kind: RowEnd, Line: r.line, Col: r.col}
				r.readByte()
				r.st = stAfterRow
				return ev, nil
			}
			if !r.first {
				if err := r.expect(','); err != nil {
					return Event{}, err
				}
			}
			r.first = false
			if !r.super {
				return r.column()
			}
			return r.superStart()
		case stSubItems:
			c, err := r.peek()
			if err != nil {
				return Event{}, err
			}
			if c == ']' {
				ev := Event{Kind: SuperEnd, Line: r.line, Col: r.col}
				r.readByte()
				if err := r.expect('}'); err != nil {
					return Event{}, fmt.Errorf("%w (nothing may follow subColumns)", err)
				}
				r.st, r.first = stItems, false
				return ev, nil
			}
			if !r.first {
				if err := r.expect(','); err != nil {
					return Event{}, err
				}
			}
			r.first = false
			return r.column()
		case stAfterRow:
			c, err := r.peek()
			if err != nil {
				return Event{}, err
			}
			switch c {
			case ',':
				r.readByte()
				r.st = stRowKey
			case '}':
				r.readByte()
				r.st = stDone
				if err := r.trailing(); err != nil {
					return Event{}, err
				}
			default:
				return Event{}, r.errf("expected ',' or '}' after a row, found %q", c)
			}
		case stDone:
			return Event{}, io.EOF
		}
	}
}

// trailing checks that only whitespace follows the closing brace.
func (r *Reader) trailing() error {
	for {
		c, err := r.br.ReadByte()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			r.advance([]byte{c})
		default:
			r.br.UnreadByte()
			return r.errf("unexpected %q after the closing brace", c)
		}
	}
}

func (r *Reader) superStart() (Event, error) {
	if _, err := r.peek(); err != nil {
		return Event{}, err
	}
	ev := Event{Kind: SuperStart, Line: r.line, Col: r.col}
	name, err := r.hexString("super column name", r.name[:0])
	if err != nil {
		return Event{}, err
	}
	r.name = name
	if err := r.expect(':'); err != nil {
		return Event{}, err
	}
	if err := r.expect('{'); err != nil {
		return Event{}, err
	}
	if err := r.field("deletedAt"); err != nil {
		return Event{}, err
	}
	if ev.DeletedAt, err = r.long("deletedAt"); err != nil {
		return Event{}, err
	}
	if err := r.expect(','); err != nil {
		return Event{}, err
	}
	if err := r.field("subColumns"); err != nil {
		return Event{}, err
	}
	if err := r.expect('['); err != nil {
		return Event{}, err
	}
	ev.Name = r.name
	r.st, r.first = stSubItems, true
	return ev, nil
}

// field reads "name": as a member name of a super column.
func (r *Reader) field(want string) error {
	if _, err := r.peek(); err != nil {
		return err
	}
	line, col := r.line, r.col
	s, err := r.str()
	if err != nil {
		return err
	}
	if string(s) != want {
		return r.errAt(line, col, "expected %q (a super column is {\"deletedAt\": <long>, \"subColumns\": [...]}, in that order), found %q", want, s)
	}
	return r.expect(':')
}

// column reads ["name hex", "value hex", timestamp, deleted].
func (r *Reader) column() (Event, error) {
	if _, err := r.peek(); err != nil {
		return Event{}, err
	}
	ev := Event{Kind: ColumnItem, Line: r.line, Col: r.col}
	if r.fastColumn(&ev) {
		return ev, nil
	}
	if err := r.expect('['); err != nil {
		return Event{}, fmt.Errorf("%w (a column is [\"<name hex>\", \"<value hex>\", <timestamp>, <deleted>])", err)
	}
	name, err := r.hexString("column name", r.name[:0])
	if err != nil {
		return Event{}, err
	}
	r.name = name
	if err := r.expect(','); err != nil {
		return Event{}, err
	}
	value, err := r.hexString("column value", r.value[:0])
	if err != nil {
		return Event{}, err
	}
	r.value = value
	if err := r.expect(','); err != nil {
		return Event{}, err
	}
	ts, err := r.long("timestamp")
	if err != nil {
		return Event{}, err
	}
	if err := r.expect(','); err != nil {
		return Event{}, err
	}
	del, err := r.boolean()
	if err != nil {
		return Event{}, err
	}
	if err := r.expect(']'); err != nil {
		return Event{}, fmt.Errorf("%w (a column has exactly four elements)", err)
	}
	ev.Column = Column{Name: r.name, Value: r.value, Timestamp: ts, Deleted: del}
	return ev, nil
}

// fastColumn reads a column in the common layout straight from the
// buffered bytes: on one line, hex strings without escapes, a plain
// integer, true or false. It reports false, having consumed nothing, for
// anything else, which column then reads byte by byte with exact errors.
func (r *Reader) fastColumn(ev *Event) bool {
	buf, _ := r.br.Peek(r.br.Buffered())
	i := 0
	ws := func() {
		for i < len(buf) && (buf[i] == ' ' || buf[i] == '\t') {
			i++
		}
	}
	lit := func(c byte) bool {
		ws()
		if i < len(buf) && buf[i] == c {
			i++
			return true
		}
		return false
	}
	hexStr := func(dst []byte) ([]byte, bool) {
		if !lit('"') {
			return nil, false
		}
		j := bytes.IndexByte(buf[i:], '"')
		if j < 0 || j%2 != 0 {
			return nil, false
		}
		out, err := hex.AppendDecode(dst, buf[i:i+j])
		if err != nil {
			return nil, false
		}
		i += j + 1
		return out, true
	}
	if !lit('[') {
		return false
	}
	name, ok := hexStr(r.name[:0])
	if !ok || !lit(',') {
		return false
	}
	value, ok := hexStr(r.value[:0])
	if !ok || !lit(',') {
		return false
	}
	ws()
	start := i
	if i < len(buf) && buf[i] == '-' {
		i++
	}
	for i < len(buf) && buf[i] >= '0' && buf[i] <= '9' {
		i++
	}
	num := buf[start:i]
	if len(num) == 0 || len(num) > 20 || (len(num) > 1 && (num[0] == '0' || num[0] == '-' && num[1] == '0')) {
		return false
	}
	ts, err := strconv.ParseInt(string(num), 10, 64)
	if err != nil || !lit(',') {
		return false
	}
	ws()
	var del bool
	switch {
	case bytes.HasPrefix(buf[i:], []byte("true")):
		del, i = true, i+4
	case bytes.HasPrefix(buf[i:], []byte("false")):
		i += 5
	default:
		return false
	}
	if !lit(']') {
		return false
	}
	r.name, r.value = name, value
	r.n += int64(i)
	r.col += i
	r.br.Discard(i)
	ev.Column = Column{Name: name, Value: value, Timestamp: ts, Deleted: del}
	return true
}

// str reads a strict JSON string and returns its decoded bytes.
func (r *Reader) str() ([]byte, error) {
	c, err := r.peek()
	if err != nil {
		return nil, err
	}
	if c != '"' {
		return nil, r.errf("expected a string, found %q", c)
	}
	line, col := r.line, r.col
	r.readByte()
	raw := r.scratch[:0]
	defer func() { r.scratch = raw[:0] }()
	for {
		chunk, err := r.br.ReadSlice('"')
		if err == bufio.ErrBufferFull {
			raw = append(raw, chunk...)
			continue
		}
		if err == io.EOF {
			return nil, r.errAt(line, col, "string not terminated")
		}
		if err != nil {
			return nil, err
		}
		raw = append(raw, chunk...)
		// The quote ends the string unless an odd run of backslashes
		// escapes it.
		bs := 0
		for i := len(raw) - 2; i >= 0 && raw[i] == '\\'; i-- {
			bs++
		}
		if bs%2 == 0 {
			break
		}
	}
	body := raw[:len(raw)-1]
	for i, c := range body {
		if c < 0x20 {
			return nil, r.errAt(line, col+1+i, "control character %#x in a string", c)
		}
	}
	r.advance(raw)
	if bytes.IndexByte(body, '\\') < 0 {
		return body, nil
	}
	var s string
	quoted := make([]byte, 0, len(body)+2)
	quoted = append(append(append(quoted, '"'), body...), '"')
	if err := json.Unmarshal(quoted, &s); err != nil {
		return nil, r.errAt(line, col, "bad escape in string: %v", err)
	}
	return []byte(s), nil
}

// hexString reads a string of hex digits and appends its bytes to dst.
func (r *Reader) hexString(what string, dst []byte) ([]byte, error) {
	if _, err := r.peek(); err != nil {
		return nil, err
	}
	line, col := r.line, r.col
	s, err := r.str()
	if err != nil {
		return nil, err
	}
	if len(s)%2 != 0 {
		return nil, r.errAt(line, col, "%s %q: odd number of hex digits", what, clip(s))
	}
	out, err := hex.AppendDecode(dst, s)
	if err != nil {
		return nil, r.errAt(line, col, "%s %q is not hex: %v", what, clip(s), err)
	}
	return out, nil
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// token reads a run of bytes that can form a number or literal.
func (r *Reader) token() ([]byte, int, int, error) {
	if _, err := r.peek(); err != nil {
		return nil, 0, 0, err
	}
	line, col := r.line, r.col
	t := r.tok[:0]
	defer func() { r.tok = t[:0] }()
	for {
		c, err := r.br.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, 0, err
		}
		if !(c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			r.br.UnreadByte()
			break
		}
		t = append(t, c)
		if len(t) > 64 {
			break
		}
	}
	r.advance(t)
	return t, line, col, nil
}

func (r *Reader) long(what string) (int64, error) {
	t, line, col, err := r.token()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(string(t), 10, 64)
	if err != nil || (len(t) > 1 && (t[0] == '0' || t[0] == '-' && t[1] == '0')) {
		return 0, r.errAt(line, col, "%s must be a whole number of 64 bits, found %q", what, clip(t))
	}
	return v, nil
}

func (r *Reader) boolean() (bool, error) {
	t, line, col, err := r.token()
	if err != nil {
		return false, err
	}
	switch string(t) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, r.errAt(line, col, "deleted flag must be true or false, found %q", clip(t))
}
