package comparator

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"
)

// The reference vectors: what the real Cassandra 1.2.19's TypeParser and
// types do, printed by test/reference/typevectors (see testdata/README.md
// for the command that regenerates the file).
type vectors struct {
	Cassandra string `json:"cassandra"`
	Parse     []struct {
		In    string  `json:"in"`
		Name  *string `json:"name"`
		Error *string `json:"error"`
	} `json:"parse"`
	Types []struct {
		Type     string    `json:"type"`
		Name     string    `json:"name"`
		Values   []string  `json:"values"`
		Validate []*string `json:"validate"`
		// Compare[i][j] is '<', '=' or '>' for compare(values[i],
		// values[j]), or '9' where either value is invalid or the real
		// compare throws.
		Compare []string `json:"compare"`
	} `json:"types"`
}

func loadVectors(t *testing.T) *vectors {
	t.Helper()
	b, err := os.ReadFile("testdata/types-1.2.19.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if v.Cassandra != "1.2.19" || len(v.Parse) == 0 || len(v.Types) == 0 {
		t.Fatalf("vectors: version %q, %d parse cases, %d types", v.Cassandra, len(v.Parse), len(v.Types))
	}
	return &v
}

func TestVectorsParse(t *testing.T) {
	for _, p := range loadVectors(t).Parse {
		c, err := Parse(p.In)
		switch {
		case p.Name != nil && (err != nil || c.Name() != *p.Name):
			t.Errorf("Parse(%q) = %v, %v; the real server: %s", p.In, c, err, *p.Name)
		case p.Error != nil && (err == nil || err.Error() != *p.Error):
			t.Errorf("Parse(%q) = %v, %v; the real server: error %q", p.In, c, err, *p.Error)
		}
	}
}

func TestVectorsTypes(t *testing.T) {
	sym := map[byte]int{'<': -1, '=': 0, '>': 1}
	for _, tv := range loadVectors(t).Types {
		t.Run(tv.Type, func(t *testing.T) {
			c := mustParse(t, tv.Type)
			if c.Name() != tv.Name {
				t.Errorf("Name() = %s; the real server: %s", c.Name(), tv.Name)
			}
			if len(tv.Validate) != len(tv.Values) || len(tv.Compare) != len(tv.Values) {
				t.Fatalf("vectors of %s: %d values, %d validations, %d compare rows", tv.Type, len(tv.Values), len(tv.Validate), len(tv.Compare))
			}
			values := make([][]byte, len(tv.Values))
			enc := make([][]byte, len(tv.Values))
			for i, h := range tv.Values {
				v, err := hex.DecodeString(h)
				if err != nil {
					t.Fatal(err)
				}
				values[i] = v
				enc[i] = c.Encode(nil, v)
				err = c.Validate(v)
				switch want := tv.Validate[i]; {
				case want == nil && err != nil:
					t.Errorf("Validate(%x) = %v; the real server accepts it", v, err)
				case want != nil && (err == nil || err.Error() != *want):
					t.Errorf("Validate(%x) = %v; the real server: %q", v, err, *want)
				}
			}
			pairs := 0
			for i, row := range tv.Compare {
				if len(row) != len(values) {
					t.Fatalf("compare row %d has %d entries", i, len(row))
				}
				for j := range values {
					want, ok := sym[row[j]]
					if !ok {
						continue
					}
					pairs++
					if got := c.Compare(values[i], values[j]); got != want {
						t.Errorf("Compare(%x, %x) = %d; the real server: %d", values[i], values[j], got, want)
					}
					got := bytes.Compare(enc[i], enc[j])
					if want != 0 && got != want {
						t.Errorf("encodings of %x, %x compare %d; the real server: %d", values[i], values[j], got, want)
					}
					if want == 0 && (got == 0) != bytes.Equal(values[i], values[j]) {
						t.Errorf("encodings of equal names %x, %x compare %d", values[i], values[j], got)
					}
				}
			}
			if pairs == 0 {
				t.Error("no compared pairs")
			}
		})
	}
}
