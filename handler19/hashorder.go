package handler19

import (
	"sort"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// Column metadata in 1.2's order. CFMetaData kept a column family's
// column definitions in a java.util.HashMap keyed by the name's
// ByteBuffer, and toThrift listed them as that map iterates, so
// describe_keyspace(s) answered them in the map's bucket order, not in
// name order, and cassandra-cli's describe and show schema print them so.
// The real 1.2.19 node rebuilds the map from system.schema_columns at
// every schema change, inserting in the order of those rows (the name as
// the comparator prints it); hashMapOrder lays the definitions out as a
// HashMap built that way iterates: Java 8's (the node runs on Java 17)
// table of 16 buckets doubled whenever it holds more than three quarters
// of its size, each name in bucket (h ^ h>>>16) & (size-1) of its
// ByteBuffer.hashCode h, a bucket's names in insertion order.
func hashMapOrder(cds []*cassandra19.ColumnDef, text func([]byte) string) []*cassandra19.ColumnDef {
	if len(cds) < 2 {
		return cds
	}
	in := append([]*cassandra19.ColumnDef(nil), cds...)
	sort.SliceStable(in, func(i, j int) bool { return text(in[i].Name) < text(in[j].Name) })
	size := 16
	for len(in) > size*3/4 {
		size *= 2
	}
	buckets := make([][]*cassandra19.ColumnDef, size)
	for _, cd := range in {
		h := uint32(byteBufferHash(cd.Name))
		b := int((h ^ h>>16) & uint32(size-1))
		buckets[b] = append(buckets[b], cd)
	}
	out := make([]*cassandra19.ColumnDef, 0, len(in))
	for _, b := range buckets {
		out = append(out, b...)
	}
	return out
}

// byteBufferHash is java.nio.ByteBuffer.hashCode of b: 31 times the
// hash plus each byte, signed, from the last byte to the first.
func byteBufferHash(b []byte) int32 {
	h := int32(1)
	for i := len(b) - 1; i >= 0; i-- {
		h = 31*h + int32(int8(b[i]))
	}
	return h
}
