package handler19

import "testing"

// The texts Cassandra 1.2.19's getString gives (Java's Double.toString,
// BigDecimal.toPlainString, InetAddress.getHostAddress, the composite
// escaping).
func TestTypeText(t *testing.T) {
	for _, c := range []struct {
		typ  string
		b    []byte
		want string
	}{
		{"org.apache.cassandra.db.marshal.LongType", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfd}, "-3"},
		{"org.apache.cassandra.db.marshal.Int32Type", []byte{0, 0, 0, 7}, "7"},
		{"org.apache.cassandra.db.marshal.IntegerType", []byte{0xff, 0x7f}, "-129"},
		{"org.apache.cassandra.db.marshal.IntegerType", []byte{}, "empty"},
		{"org.apache.cassandra.db.marshal.DecimalType", []byte{0, 0, 0, 2, 0xfb}, "-0.05"},
		{"org.apache.cassandra.db.marshal.DecimalType", []byte{0xff, 0xff, 0xff, 0xfe, 5}, "500"},
		{"org.apache.cassandra.db.marshal.DecimalType", []byte{0, 0, 0, 1, 0x7b}, "12.3"},
		{"org.apache.cassandra.db.marshal.DoubleType", []byte{0x3f, 0xf8, 0, 0, 0, 0, 0, 0}, "1.5"},
		{"org.apache.cassandra.db.marshal.DoubleType", []byte{0x42, 0x02, 0xa0, 0x5f, 0x20, 0, 0, 0}, "1.0E10"},
		{"org.apache.cassandra.db.marshal.DoubleType", []byte{0xc0, 0, 0, 0, 0, 0, 0, 0}, "-2.0"},
		{"org.apache.cassandra.db.marshal.FloatType", []byte{0x3f, 0xc0, 0, 0}, "1.5"},
		{"org.apache.cassandra.db.marshal.BooleanType", []byte{2}, "true"},
		{"org.apache.cassandra.db.marshal.DateType", []byte{0, 0, 0, 0, 0, 0, 0x03, 0xe8}, "1970-01-01 00:00:01+0000"},
		{"org.apache.cassandra.db.marshal.InetAddressType", []byte{127, 0, 0, 1}, "127.0.0.1"},
		{"org.apache.cassandra.db.marshal.InetAddressType", append(make([]byte, 15), 1), "0:0:0:0:0:0:0:1"},
		{"org.apache.cassandra.db.marshal.UUIDType", []byte{0, 0, 0, 0, 0, 0, 0x40, 9, 0x80, 0, 0, 0, 0, 0, 0, 1}, "00000000-0000-4009-8000-000000000001"},
		{"org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.LongType)", []byte{0, 0, 0, 0, 0, 0, 0, 5}, "5"},
		{"org.apache.cassandra.db.marshal.CompositeType(org.apache.cassandra.db.marshal.UTF8Type,org.apache.cassandra.db.marshal.LongType)",
			[]byte{0, 3, 'a', ':', '!', 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 1, 0}, `a\:!!:1`},
		{"org.apache.cassandra.db.marshal.CompositeType(org.apache.cassandra.db.marshal.UTF8Type,org.apache.cassandra.db.marshal.LongType)",
			[]byte{0, 1, 'a', 1}, "a:!"},
		{"org.apache.cassandra.db.marshal.BytesType", []byte{0xca, 0xfe}, "cafe"},
	} {
		if got := typeText(c.typ, c.b); got != c.want {
			t.Errorf("typeText(%s, %x) = %q, want %q", c.typ, c.b, got, c.want)
		}
	}
}
