// Package sstablejson reads and writes the JSON format of Cassandra 0.6's
// sstable2json and json2sstable, one column family per file:
//
//	{
//	  "<row key>": [["<name hex>", "<value hex>", <timestamp>, <deleted>], ...],
//	  "<row key>": { "<super name hex>": {"deletedAt": <long>, "subColumns": [[...], ...]}, ...}
//	}
//
// Names and values are lowercase hex of their bytes. 0.6 printed the row key
// between quotes without escaping it; the Writer escapes it (so every file it
// writes is valid JSON and byte-identical to 0.6's for keys that need no
// escape), and the Reader accepts 0.6's unescaped keys wherever the file
// still reads one way only.
//
// Both stream: a Writer holds at most one column, a Reader at most one
// value, so rows of any width pass through in bounded memory.
package sstablejson

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// NotDeleted is the deletedAt 0.6 prints for a super column never deleted
// (Java's Long.MIN_VALUE).
const NotDeleted int64 = math.MinInt64

// Column is one column or subcolumn of a row.
type Column struct {
	Name, Value []byte
	Timestamp   int64
	// Deleted marks a tombstone; its Value is then 0.6's local deletion
	// time (4 bytes, seconds), which an import ignores.
	Deleted bool
}

// Writer writes one column family's rows in 0.6's layout: "{\n", rows
// separated by ",\n", each "  " then the row on one line, then "\n}\n".
// Calls must nest: BeginRow, then (standard) Column... or (super)
// BeginSuper, Column..., EndSuper..., then EndRow; Close ends the file.
// The first error is sticky and returned by every later call.
type Writer struct {
	w     *bufio.Writer
	super bool
	// rows written so far, counting those of a resumed file.
	rows   int64
	offset int64
	// items is how many columns (or super columns) the open row has,
	// subs how many subcolumns the open super column has.
	items, subs int
	inRow       bool
	inSuper     bool
	scratch     []byte
	err         error
}

// NewWriter starts a file on w for a standard (super=false) or super
// column family and writes its opening brace.
func NewWriter(w io.Writer, super bool) *Writer {
	wr := &Writer{w: bufio.NewWriterSize(w, 64<<10), super: super}
	wr.write([]byte("{\n"))
	return wr
}

// ResumeWriter continues a file cut at a row boundary after rows complete
// rows (the file already holds its opening brace and those rows).
func ResumeWriter(w io.Writer, super bool, rows int64, offset int64) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 64<<10), super: super, rows: rows, offset: offset}
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.w.Write(b)
	w.offset += int64(n)
	w.err = err
}

// Rows is the number of complete rows written, Offset the size of the
// file once flushed; after EndRow and Flush the two make a resume point.
func (w *Writer) Rows() int64   { return w.rows }
func (w *Writer) Offset() int64 { return w.offset }

// Flush writes what is buffered to the underlying writer.
func (w *Writer) Flush() error {
	if w.err == nil {
		w.err = w.w.Flush()
	}
	return w.err
}

// ErrKeyNotUTF8 is returned for a row key that is not valid UTF-8: JSON
// cannot carry it (0.6's keys were Java strings, always valid).
var ErrKeyNotUTF8 = errors.New("row key is not valid UTF-8")

// BeginRow opens a row.
func (w *Writer) BeginRow(key string) error {
	if w.err != nil {
		return w.err
	}
	if w.inRow {
		return errors.New("sstablejson: BeginRow inside a row")
	}
	if !utf8.ValidString(key) {
		return fmt.Errorf("%w: %x", ErrKeyNotUTF8, key)
	}
	if w.rows > 0 {
		w.write([]byte(",\n"))
	}
	b := append(w.scratch[:0], "  "...)
	b = AppendKey(b, key)
	if w.super {
		b = append(b, ": { "...)
	} else {
		b = append(b, ": ["...)
	}
	w.scratch = b
	w.write(b)
	w.inRow, w.items = true, 0
	return w.err
}

// BeginSuper opens a super column of the open row.
func (w *Writer) BeginSuper(name []byte, deletedAt int64) error {
	if w.err != nil {
		return w.err
	}
	if !w.super || !w.inRow || w.inSuper {
		return errors.New("sstablejson: BeginSuper out of place")
	}
	b := w.scratch[:0]
	if w.items > 0 {
		b = append(b, ", "...)
	}
	b = append(b, '"')
	b = hex.AppendEncode(b, name)
	b = append(b, `": {"deletedAt": `...)
	b = strconv.AppendInt(b, deletedAt, 10)
	b = append(b, `, "subColumns": [`...)
	w.scratch = b
	w.write(b)
	w.items++
	w.inSuper, w.subs = true, 0
	return w.err
}

// EndSuper closes the open super column.
func (w *Writer) EndSuper() error {
	if !w.inSuper {
		return errors.New("sstablejson: EndSuper without BeginSuper")
	}
	w.write([]byte("]}"))
	w.inSuper = false
	return w.err
}

// Column writes a column of the open standard row, or a subcolumn of the
// open super column.
func (w *Writer) Column(c Column) error {
	if w.err != nil {
		return w.err
	}
	n := &w.items
	if w.super {
		if !w.inSuper {
			return errors.New("sstablejson: Column of a super row outside a super column")
		}
		n = &w.subs
	} else if !w.inRow {
		return errors.New("sstablejson: Column outside a row")
	}
	b := w.scratch[:0]
	if *n > 0 {
		b = append(b, ", "...)
	}
	b = append(b, `["`...)
	b = hex.AppendEncode(b, c.Name)
	b = append(b, `", "`...)
	b = hex.AppendEncode(b, c.Value)
	b = append(b, `", `...)
	b = strconv.AppendInt(b, c.Timestamp, 10)
	b = append(b, ", "...)
	b = strconv.AppendBool(b, c.Deleted)
	b = append(b, ']')
	*n++
	if cap(b) > 1<<20 {
		w.write(b)
		w.scratch = nil
		return w.err
	}
	w.scratch = b
	w.write(b)
	return w.err
}

// EndRow closes the open row.
func (w *Writer) EndRow() error {
	if !w.inRow || w.inSuper {
		return errors.New("sstablejson: EndRow out of place")
	}
	if w.super {
		w.write([]byte("}"))
	} else {
		w.write([]byte("]"))
	}
	w.inRow = false
	w.rows++
	return w.err
}

// Close ends the file and flushes it; it does not close the underlying
// writer.
func (w *Writer) Close() error {
	if w.inRow {
		return errors.New("sstablejson: Close inside a row")
	}
	w.write([]byte("\n}\n"))
	return w.Flush()
}

// AppendKey appends key as a JSON string: quotes, backslashes and control
// characters escaped, everything else (UTF-8 included) as is, which is
// what 0.6 printed for every key that needs no escape.
func AppendKey(b []byte, key string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
