package cqlstore

import (
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// superLayoutColumns is the column_metadata Cassandra 3.0 to 3.11 list
// for a super column family of their own accord, which thriftd lists for
// one it serves in place (the super shape, adoptsuper.go) as 3.11.19 did
// before DROP COMPACT STORAGE: the map of subcolumns, named "" and typed
// MapType(subcomparator, default validator), then "value" of the default
// validator. No client declared them; thriftd-tool copy leaves them out
// (transfer/copy19.go, superLayoutColumns). Neither can name a subcolumn
// a client writes (an empty name is refused, and "value"'s validator is
// the default one).
func superLayoutColumns(sub, val marshal.Comparator) []schema.ColumnDef {
	return []schema.ColumnDef{
		{Name: []byte{}, Validator: describedAs{val, marshalPackage + "MapType(" + sub.Name() + "," + val.Name() + ")"}},
		{Name: []byte("value"), Validator: val},
	}
}

// describedAs is a validator described under another type's name: a
// collection type, which marshal.Parse refuses (no Thrift server takes
// one), for a column that holds no Thrift column.
type describedAs struct {
	marshal.Comparator
	name string
}

func (d describedAs) Name() string { return d.name }
