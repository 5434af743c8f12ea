package sstablejson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// row is a whole row, for tests only.
type row struct {
	Key    string
	Cols   []Column
	Supers []super
}

type super struct {
	Name      []byte
	DeletedAt int64
	Cols      []Column
}

func writeRows(t *testing.T, isSuper bool, rows []row) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf, isSuper)
	for _, r := range rows {
		if err := w.BeginRow(r.Key); err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Cols {
			if err := w.Column(c); err != nil {
				t.Fatal(err)
			}
		}
		for _, s := range r.Supers {
			if err := w.BeginSuper(s.Name, s.DeletedAt); err != nil {
				t.Fatal(err)
			}
			for _, c := range s.Cols {
				if err := w.Column(c); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.EndSuper(); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readRows(file []byte, isSuper bool, mode KeyMode) ([]row, error) {
	r := NewReader(bytes.NewReader(file), "f.json", isSuper, mode)
	var rows []row
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		clone := func(c Column) Column {
			c.Name = bytes.Clone(c.Name)
			c.Value = bytes.Clone(c.Value)
			return c
		}
		switch ev.Kind {
		case RowStart:
			rows = append(rows, row{Key: ev.Key})
		case SuperStart:
			cur := &rows[len(rows)-1]
			cur.Supers = append(cur.Supers, super{Name: bytes.Clone(ev.Name), DeletedAt: ev.DeletedAt})
		case ColumnItem:
			cur := &rows[len(rows)-1]
			if isSuper {
				s := &cur.Supers[len(cur.Supers)-1]
				s.Cols = append(s.Cols, clone(ev.Column))
			} else {
				cur.Cols = append(cur.Cols, clone(ev.Column))
			}
		}
	}
}

func TestWriterMatches06Layout(t *testing.T) {
	got := writeRows(t, false, []row{
		{Key: "k1", Cols: []Column{{Name: []byte("n"), Value: []byte("v"), Timestamp: 1}, {Name: []byte{0, 1}, Value: nil, Timestamp: -5, Deleted: true}}},
		{Key: "k2"},
	})
	want := "{\n  \"k1\": [[\"6e\", \"76\", 1, false], [\"0001\", \"\", -5, true]],\n  \"k2\": []\n}\n"
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	got = writeRows(t, true, []row{{Key: "s", Supers: []super{
		{Name: []byte("a"), DeletedAt: NotDeleted, Cols: []Column{{Name: []byte("x"), Value: []byte("y"), Timestamp: 2}}},
		{Name: []byte("b"), DeletedAt: 7},
	}}})
	want = "{\n  \"s\": { \"61\": {\"deletedAt\": -9223372036854775808, \"subColumns\": [[\"78\", \"79\", 2, false]]}, \"62\": {\"deletedAt\": 7, \"subColumns\": []}}\n}\n"
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if !json.Valid(got) {
		t.Fatal("not valid JSON")
	}
}

func TestRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	bytesOf := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		return b
	}
	keyChars := []string{"a", "\"", "\\", "\n", "é", "\x01", ":", "[", "{", " ", "}", "]"}
	for _, isSuper := range []bool{false, true} {
		for iter := 0; iter < 50; iter++ {
			var rows []row
			for i := 0; i < rng.IntN(5); i++ {
				var k strings.Builder
				for j := 0; j < rng.IntN(8); j++ {
					k.WriteString(keyChars[rng.IntN(len(keyChars))])
				}
				r := row{Key: k.String()}
				cols := func() []Column {
					var cs []Column
					for j := 0; j < rng.IntN(4); j++ {
						cs = append(cs, Column{Name: bytesOf(1 + rng.IntN(5)), Value: bytesOf(rng.IntN(5)), Timestamp: int64(rng.Uint64()), Deleted: rng.IntN(2) == 0})
					}
					return cs
				}
				if isSuper {
					for j := 0; j < rng.IntN(3); j++ {
						r.Supers = append(r.Supers, super{Name: bytesOf(1 + rng.IntN(3)), DeletedAt: int64(rng.Uint64()), Cols: cols()})
					}
				} else {
					r.Cols = cols()
				}
				rows = append(rows, r)
			}
			file := writeRows(t, isSuper, rows)
			if !json.Valid(file) {
				t.Fatalf("invalid JSON:\n%s", file)
			}
			got, err := readRows(file, isSuper, KeysAuto)
			if err != nil {
				t.Fatalf("%v\n%s", err, file)
			}
			norm := func(rs []row) []row {
				for i := range rs {
					for j := range rs[i].Cols {
						if len(rs[i].Cols[j].Value) == 0 {
							rs[i].Cols[j].Value = nil
						}
					}
					for j := range rs[i].Supers {
						for k := range rs[i].Supers[j].Cols {
							if len(rs[i].Supers[j].Cols[k].Value) == 0 {
								rs[i].Supers[j].Cols[k].Value = nil
							}
						}
					}
				}
				return rs
			}
			if !reflect.DeepEqual(norm(got), norm(rows)) {
				t.Fatalf("round trip differs\nfile:\n%s\ngot  %+v\nwant %+v", file, got, rows)
			}
		}
	}
}

func TestUnescapedKeysOf06(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		super      bool
		mode       KeyMode
		key        string
	}{
		{"quote", "{\n  \"say \"hi\"\": [[\"6e\", \"76\", 1, false]]\n}\n", false, KeysAuto, `say "hi"`},
		{"trailing backslash", "{\n  \"a\\\": [[\"6e\", \"76\", 1, false]]\n}\n", false, KeysAuto, `a\`},
		{"bad escape", "{\n  \"a\\qb\": []\n}\n", false, KeysAuto, `a\qb`},
		{"raw mode keeps backslashes", "{\n  \"a\\nb\": []\n}\n", false, KeysRaw, `a\nb`},
		{"auto reads JSON escapes", "{\n  \"a\\nb\": []\n}\n", false, KeysAuto, "a\nb"},
		{"super", "{\n  \"x\"y\": { \"61\": {\"deletedAt\": 3, \"subColumns\": []}}\n}\n", true, KeysAuto, `x"y`},
		{"super empty row", "{\n  \"x\"y\": { }\n}\n", true, KeysAuto, `x"y`},
		{"super key with inner pattern", "{\n  \"k\": {\"deletedAt\": 1\": { \"61\": {\"deletedAt\": 3, \"subColumns\": []}}\n}\n", true, KeysAuto, `k": {"deletedAt": 1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := readRows([]byte(tc.file), tc.super, tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 || rows[0].Key != tc.key {
				t.Fatalf("rows %+v, want key %q", rows, tc.key)
			}
		})
	}
}

func TestErrorsNameLineAndColumn(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		super      bool
		want       string
	}{
		{"ambiguous key", "{\n  \"a\": [b\": [[\"6e\", \"76\", 1, false]]\n}\n", false, "f.json:2:3: ambiguous row key: it may end at line 2 column 5 or at line 2 column 10"},
		{"ambiguous raw", "{\n  \"a\"\": [b\"\": [[\"6e\", \"76\", 1, false]]\n}\n", false, "f.json:2:3: ambiguous row key"},
		{"bad hex", "{\n  \"k\": [[\"6g\", \"76\", 1, false]]\n}\n", false, "f.json:2:10: column name \"6g\" is not hex"},
		{"odd hex", "{\n  \"k\": [[\"6\", \"76\", 1, false]]\n}\n", false, "f.json:2:10: column name \"6\": odd number"},
		{"three elements", "{\n  \"k\": [[\"6e\", \"76\", 1]]\n}\n", false, "f.json:2:23: expected ','"},
		{"float timestamp", "{\n  \"k\": [[\"6e\", \"76\", 1.5, false]]\n}\n", false, "f.json:2:22: timestamp must be a whole number"},
		{"bad bool", "{\n  \"k\": [[\"6e\", \"76\", 1, 0]]\n}\n", false, "f.json:2:25: deleted flag must be true or false"},
		{"super as standard", "{\n  \"k\": { \"61\": {\"deletedAt\": 3, \"subColumns\": []}}\n}\n", false, "f.json:2:3: the row is an object of super columns, but the column family is standard"},
		{"standard as super", "{\n  \"k\": [[\"6e\", \"76\", 1, false]]\n}\n", true, "f.json:2:3: the row is a list of columns, but the column family is super"},
		{"deletedAt order", "{\n  \"k\": { \"61\": {\"subColumns\": [], \"deletedAt\": 3}}\n}\n", true, "f.json:2:17: expected \"deletedAt\""},
		{"trailing garbage", "{\n}\nx", false, "f.json:3:1: unexpected 'x' after the closing brace"},
		{"truncated", "{\n  \"k\": [[\"6e\", \"76\", 1, false]", false, "unexpected end of file"},
		{"no key end", "{\n  \"k", false, "f.json:2:3: cannot find the end of the row key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readRows([]byte(tc.file), tc.super, KeysAuto)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want a SyntaxError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestLongValueBeyondBuffer(t *testing.T) {
	big := bytes.Repeat([]byte{0xab}, 3<<20)
	file := writeRows(t, false, []row{{Key: "k", Cols: []Column{{Name: []byte("n"), Value: big, Timestamp: 9}}}})
	rows, err := readRows(file, false, KeysAuto)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rows[0].Cols[0].Value, big) {
		t.Fatal("value differs")
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte("{\n  \"k\": [[\"6e\", \"76\", 1, false]]\n}\n"), false)
	f.Add([]byte("{\n  \"s\": { \"61\": {\"deletedAt\": 7, \"subColumns\": [[\"78\", \"79\", 2, false]]}}\n}\n"), true)
	f.Fuzz(func(t *testing.T, file []byte, isSuper bool) {
		readRows(file, isSuper, KeysAuto)
		readRows(file, isSuper, KeysRaw)
	})
}
