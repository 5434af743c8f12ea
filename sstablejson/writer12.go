package sstablejson

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"strconv"
)

// Writer12 writes the 1.x format (see Read12) laid out as 1.2's
// SSTableExport laid it out: "[", one row a line, rows separated by ",",
// "]". Names and values are given as text (TypeString).
type Writer12 struct {
	w        *bufio.Writer
	rows     int
	super    bool
	first    bool // no column (or super column) yet in the open row
	subFirst bool
	err      error
}

// NewWriter12 starts a file; super says the family is a super family.
func NewWriter12(w io.Writer, super bool) *Writer12 {
	x := &Writer12{w: bufio.NewWriterSize(w, 64<<10), super: super}
	x.w.WriteString("[\n")
	return x
}

func jsonText(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// BeginRow opens a row.
func (x *Writer12) BeginRow(key []byte) {
	if x.rows > 0 {
		x.w.WriteString(",\n")
	}
	x.rows++
	x.w.WriteString(`{"key": "`)
	x.w.WriteString(hex.EncodeToString(key))
	x.w.WriteString(`","columns": `)
	if x.super {
		x.w.WriteByte('{')
	} else {
		x.w.WriteByte('[')
	}
	x.first = true
}

// BeginSuper opens a super column of the open row.
func (x *Writer12) BeginSuper(name string) {
	if !x.first {
		x.w.WriteString(", ")
	}
	x.first = false
	x.w.Write(jsonText(name))
	x.w.WriteString(`: {"subColumns": [`)
	x.subFirst = true
}

// EndSuper closes the open super column.
func (x *Writer12) EndSuper() { x.w.WriteString("]}") }

// Column writes a live column, expiring when ttl > 0 (then localExp is
// its local expiration time, in seconds since the epoch).
func (x *Writer12) Column(name, value string, ts int64, ttl, localExp int32) {
	x.open()
	x.w.WriteByte('[')
	x.w.Write(jsonText(name))
	x.w.WriteByte(',')
	x.w.Write(jsonText(value))
	x.w.WriteByte(',')
	x.w.WriteString(strconv.FormatInt(ts, 10))
	if ttl > 0 {
		x.w.WriteString(`,"e",`)
		x.w.WriteString(strconv.FormatInt(int64(ttl), 10))
		x.w.WriteByte(',')
		x.w.WriteString(strconv.FormatInt(int64(localExp), 10))
	}
	x.w.WriteByte(']')
}

// Counter writes a counter cell whose value is total, as 1.2 wrote one
// (counter12.go): its context, timestamp ts, and "c" with the timestamp of
// the last delete of a counter never deleted.
func (x *Writer12) Counter(name string, total, ts int64) {
	x.open()
	x.w.WriteByte('[')
	x.w.Write(jsonText(name))
	x.w.WriteString(`,"`)
	x.w.WriteString(CounterContext12(total))
	x.w.WriteString(`",`)
	x.w.WriteString(strconv.FormatInt(ts, 10))
	x.w.WriteString(`,"c",`)
	x.w.WriteString(strconv.FormatInt(NoCounterDelete, 10))
	x.w.WriteByte(']')
}

// open starts a cell of the open row or super column.
func (x *Writer12) open() {
	first := &x.first
	if x.super {
		first = &x.subFirst
	}
	if !*first {
		x.w.WriteString(", ")
	}
	*first = false
}

// EndRow closes the open row.
func (x *Writer12) EndRow() {
	if x.super {
		x.w.WriteString("}}")
	} else {
		x.w.WriteString("]}")
	}
}

// Flush writes what is buffered.
func (x *Writer12) Flush() error { return x.w.Flush() }

// Close ends the file (it does not close the underlying writer).
func (x *Writer12) Close() error {
	if x.rows > 0 {
		x.w.WriteString("\n")
	}
	x.w.WriteString("]\n")
	return x.w.Flush()
}
