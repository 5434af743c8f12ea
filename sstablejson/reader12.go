package sstablejson

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// The 1.x format, as Cassandra 1.2's sstable2json (SSTableExport) writes
// it and json2sstable (SSTableImport) reads it: a JSON array of rows,
//
//	[
//	{"key": "6b6579","metadata": {"deletionInfo": {"markedForDeleteAt":1,"localDeletionTime":2}},"columns": [["name","value",1290000000000000], ...]},
//	...
//	]
//
// the key in hex; metadata only for a deleted row (its tombstone); the
// columns of a standard family a list, those of a super family an object
// of super columns, {"NAME": {"metadata": ..., "subColumns": [...]}}.
// Names and values are text of the family's types (TypeString); a column
// is [name, value, timestamp] with, after it, "d" for a tombstone (its
// value is the local deletion time in hex), "e", ttl, local expiration
// time for an expiring column, "c", timestamp of the last delete for a
// counter, and "t", local deletion time for a range tombstone (whose
// value is the end of the range).

// Deletion12 is a row's or super column's deletionInfo.
type Deletion12 struct {
	MarkedForDeleteAt int64 `json:"markedForDeleteAt"`
	LocalDeletionTime int32 `json:"localDeletionTime"`
}

// Column12 is one column of a 1.x file, its name and value as written
// (text of the family's types).
type Column12 struct {
	Name, Value string
	Timestamp   int64
	// Kind is "" (live), "d", "e", "c" or "t".
	Kind string
	// TTL and LocalExpiration for "e"; LocalExpiration is also the local
	// deletion time of "t".
	TTL, LocalExpiration int32
	// TimestampOfLastDelete for "c".
	TimestampOfLastDelete int64
}

// Row12 is what Read12 gives for each row.
type Row12 struct {
	Key []byte
	// Deleted is the row's tombstone, if any.
	Deleted *Deletion12
}

// Handler12 receives a 1.x file's rows in order: Row, then each super
// column (Super; nil for a standard family) with its columns, then
// EndRow.
type Handler12 interface {
	Row(r Row12) error
	Super(name string, deleted *Deletion12) error
	Column(c Column12) error
	EndRow() error
}

// ErrNot12 is returned when a file does not begin as a 1.x file does.
var ErrNot12 = errors.New("not the JSON of Cassandra 1.x's sstable2json (an array of rows)")

// Is12 reports whether the file r starts with (after white space) begins
// as a 1.x file ('[') rather than a 0.6 one ('{').
func Is12(r io.Reader) (bool, error) {
	br := bufio.NewReader(r)
	for {
		b, err := br.ReadByte()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		case '[':
			return true, nil
		}
		return false, nil
	}
}

// Read12 reads a 1.x file as a stream (a row is never held whole, a
// super column is) and passes its rows to h. A fault is an error giving
// the byte offset and the row.
func Read12(r io.Reader, h Handler12) error {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	fail := func(key []byte, format string, args ...any) error {
		where := fmt.Sprintf("offset %d", dec.InputOffset())
		if key != nil {
			where += fmt.Sprintf(", row %x", key)
		}
		return fmt.Errorf("%s: %s", where, fmt.Sprintf(format, args...))
	}
	if err := expectDelim(dec, '['); err != nil {
		return ErrNot12
	}
	for dec.More() {
		if err := expectDelim(dec, '{'); err != nil {
			return fail(nil, "a row is an object: %v", err)
		}
		var row Row12
		haveKey, started := false, false
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return fail(row.Key, "%v", err)
			}
			field, _ := tok.(string)
			switch field {
			case "key":
				var k string
				if err := dec.Decode(&k); err != nil {
					return fail(nil, "key: %v", err)
				}
				if row.Key, err = hex.DecodeString(k); err != nil {
					return fail(nil, "key %q is not hex", k)
				}
				haveKey = true
			case "metadata":
				d, err := decodeMeta(dec)
				if err != nil {
					return fail(row.Key, "metadata: %v", err)
				}
				row.Deleted = d
			case "columns":
				if !haveKey {
					return fail(nil, "a row's columns come before its key")
				}
				if err := h.Row(row); err != nil {
					return err
				}
				started = true
				if err := readColumns(dec, h); err != nil {
					return fail(row.Key, "%v", err)
				}
			default:
				return fail(row.Key, "unknown field %v of a row", tok)
			}
		}
		if _, err := dec.Token(); err != nil {
			return fail(row.Key, "%v", err)
		}
		if !started {
			if !haveKey {
				return fail(nil, "a row without a key")
			}
			if err := h.Row(row); err != nil {
				return err
			}
		}
		if err := h.EndRow(); err != nil {
			return err
		}
	}
	if err := expectDelim(dec, ']'); err != nil {
		return fail(nil, "%v", err)
	}
	return nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %q, found %v", want, tok)
	}
	return nil
}

func decodeMeta(dec *json.Decoder) (*Deletion12, error) {
	var m struct {
		DeletionInfo *Deletion12 `json:"deletionInfo"`
	}
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return m.DeletionInfo, nil
}

func readColumns(dec *json.Decoder, h Handler12) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('['):
		for dec.More() {
			c, err := decodeColumn(dec)
			if err != nil {
				return err
			}
			if err := h.Column(c); err != nil {
				return err
			}
		}
		_, err := dec.Token()
		return err
	case json.Delim('{'):
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			name, _ := tok.(string)
			var sc struct {
				Metadata *struct {
					DeletionInfo *Deletion12 `json:"deletionInfo"`
				} `json:"metadata"`
				SubColumns []json.RawMessage `json:"subColumns"`
			}
			if err := dec.Decode(&sc); err != nil {
				return fmt.Errorf("super column %q: %v", name, err)
			}
			var del *Deletion12
			if sc.Metadata != nil {
				del = sc.Metadata.DeletionInfo
			}
			if err := h.Super(name, del); err != nil {
				return err
			}
			for _, raw := range sc.SubColumns {
				sub := json.NewDecoder(bytes.NewReader(raw))
				sub.UseNumber()
				c, err := decodeColumn(sub)
				if err != nil {
					return fmt.Errorf("super column %q: %v", name, err)
				}
				if err := h.Column(c); err != nil {
					return err
				}
			}
		}
		_, err := dec.Token()
		return err
	}
	return fmt.Errorf("columns are a list or, for a super family, an object, not %v", tok)
}

func decodeColumn(dec *json.Decoder) (Column12, error) {
	var f []any
	if err := dec.Decode(&f); err != nil {
		return Column12{}, err
	}
	var c Column12
	if len(f) < 3 {
		return c, fmt.Errorf("a column has at least a name, a value and a timestamp: %v", f)
	}
	var ok bool
	if c.Name, ok = f[0].(string); !ok {
		return c, fmt.Errorf("a column's name is a string: %v", f)
	}
	if c.Value, ok = f[1].(string); !ok {
		return c, fmt.Errorf("a column's value is a string: %v", f)
	}
	num := func(i int, bits int) (int64, error) {
		n, ok := f[i].(json.Number)
		if !ok {
			return 0, fmt.Errorf("field %d of column %q is not a number: %v", i+1, c.Name, f[i])
		}
		v, err := strconv.ParseInt(string(n), 10, bits)
		if err != nil {
			return 0, fmt.Errorf("field %d of column %q: %v", i+1, c.Name, err)
		}
		return v, nil
	}
	var err error
	if c.Timestamp, err = num(2, 64); err != nil {
		return c, err
	}
	if len(f) == 3 {
		return c, nil
	}
	switch k := f[3].(type) {
	case bool:
		// 1.0's form, which 1.2 still read: true is deleted; six fields
		// an expiring column.
		if len(f) == 6 {
			c.Kind = "e"
		} else if k {
			c.Kind = "d"
		}
	case string:
		c.Kind = k
	default:
		return c, fmt.Errorf("the fourth field of column %q is a kind, not %v", c.Name, f[3])
	}
	var v int64
	switch c.Kind {
	case "e":
		if len(f) < 6 {
			return c, fmt.Errorf("expiring column %q needs a ttl and a local expiration time", c.Name)
		}
		if v, err = num(4, 32); err != nil {
			return c, err
		}
		c.TTL = int32(v)
		if v, err = num(5, 32); err != nil {
			return c, err
		}
		c.LocalExpiration = int32(v)
	case "c":
		if len(f) > 4 {
			if c.TimestampOfLastDelete, err = num(4, 64); err != nil {
				return c, err
			}
		}
	case "t":
		if len(f) > 4 {
			if v, err = num(4, 32); err != nil {
				return c, err
			}
			c.LocalExpiration = int32(v)
		}
	case "d", "":
	default:
		return c, fmt.Errorf("column %q has unknown kind %q", c.Name, c.Kind)
	}
	return c, nil
}
