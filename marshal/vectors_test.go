package marshal

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"
	"time"
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
		// Strings is getString of each valid value, nil where it throws.
		Strings []*string `json:"strings"`
		// Compare[i][j] is '<', '=' or '>' for compare(values[i],
		// values[j]), or '9' where either value is invalid or the real
		// compare throws.
		Compare []string `json:"compare"`
	} `json:"types"`
}

// vectorFiles are the reference files: 1.2.19 for every type, 2.1.21
// for TimestampType, which 1.2 lacks.
var vectorFiles = map[string]string{"1.2.19": "testdata/types-1.2.19.json", "2.1.21": "testdata/types-2.1.21.json"}

func loadVectors(t *testing.T, version string) *vectors {
	t.Helper()
	b, err := os.ReadFile(vectorFiles[version])
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	if v.Cassandra != version || len(v.Parse) == 0 || len(v.Types) == 0 {
		t.Fatalf("vectors: version %q, %d parse cases, %d types", v.Cassandra, len(v.Parse), len(v.Types))
	}
	return &v
}

func TestVectorsParse(t *testing.T) {
	for version := range vectorFiles {
		testVectorsParse(t, loadVectors(t, version))
	}
}

func testVectorsParse(t *testing.T, v *vectors) {
	for _, p := range v.Parse {
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
	for version := range vectorFiles {
		t.Run(version, func(t *testing.T) { testVectorsTypes(t, loadVectors(t, version)) })
	}
}

func testVectorsTypes(t *testing.T, v *vectors) {
	sym := map[byte]int{'<': -1, '=': 0, '>': 1}
	// The vectors were printed in UTC; DateType prints in the local zone.
	defer func(l *time.Location) { time.Local = l }(time.Local)
	time.Local = time.UTC
	for _, tv := range v.Types {
		t.Run(tv.Type, func(t *testing.T) {
			c := mustParse(t, tv.Type)
			if c.Name() != tv.Name {
				t.Errorf("Name() = %s; the real server: %s", c.Name(), tv.Name)
			}
			if len(tv.Validate) != len(tv.Values) || len(tv.Strings) != len(tv.Values) || len(tv.Compare) != len(tv.Values) {
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
				if want := tv.Strings[i]; want != nil && !javaCalendarOnly(c, v) && !javaLongerDigits[h] {
					if got := typeString(c, v); got != *want {
						t.Errorf("String(%x) = %q; the real server: %q", v, got, *want)
					}
				}
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

// javaCalendarOnly reports a DateType value whose date Java prints in its
// Julian calendar or as a year of an era: before 1583 or after 9999.
func javaCalendarOnly(c Comparator, v []byte) bool {
	if r, ok := c.(*reversed); ok {
		c = r.base
	}
	switch c.(type) {
	case date12, timestamp21:
	default:
		return false
	}
	if len(v) != 8 {
		return false
	}
	ms := int64(binary.BigEndian.Uint64(v))
	return ms < -12212553600000 || ms >= 253402300800000
}

// javaLongerDigits are floating point values for which Java's
// Double.toString and Float.toString (FloatingDecimal, before Java 19)
// print more digits than the shortest that reads back as the value, or
// other digits; String prints the shortest (docs/api19.md says so).
var javaLongerDigits = map[string]bool{
	"0000000000000001": true, // Double.MIN_VALUE: Java 4.9E-324, shortest 5.0E-324
	"8000000000000001": true,
	"cf927666":         true, // Java -4.9144658E9, shortest -4.914466E9
}
