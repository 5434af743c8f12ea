package handler19

import (
	"strings"
	"testing"

	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// TestColumnMetadataInHashMapOrder checks describe_keyspace's order of
// column_metadata against the real 1.2.19 node's answer (on Java 17) for
// the same fourteen columns, enough to grow 1.2's HashMap from 16 buckets
// to 32; and, for three columns, the order of 16 buckets.
func TestColumnMetadataInHashMapOrder(t *testing.T) {
	utf8, err := marshal.Lookup("UTF8Type")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ names, want string }{
		{"a b c age city zip first last email phone x1 x2 x3 street", "a b c first zip x3 x2 x1 street email last city phone age"},
		{"notes price title", "title notes price"},
		{"only", "only"},
	} {
		cf := &schema.ColumnFamily{Keyspace: "K", Name: "C", Comparator: utf8}
		for _, n := range strings.Fields(c.names) {
			cf.Columns = append(cf.Columns, schema.ColumnDef{Name: []byte(n), Validator: utf8})
		}
		var got []string
		for _, cd := range cfDef(cf).ColumnMetadata {
			got = append(got, string(cd.Name))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("column_metadata of %s: %s, want 1.2.19's %s", c.names, strings.Join(got, " "), c.want)
		}
	}
}

// TestByteBufferHash checks byteBufferHash against java.nio.ByteBuffer's
// hashCode of a few names, signed bytes included.
func TestByteBufferHash(t *testing.T) {
	for _, c := range []struct {
		b    []byte
		want int32
	}{
		{nil, 1},
		{[]byte("a"), 128},
		{[]byte("ab"), 4096},
		{[]byte{0xff}, 30},
	} {
		if got := byteBufferHash(c.b); got != c.want {
			t.Errorf("hash of %x = %d, want %d", c.b, got, c.want)
		}
	}
}
