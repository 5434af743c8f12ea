package dialect

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// encode is s as the binary protocol writes it.
func encode(t testing.TB, s thrift.TStruct) []byte {
	t.Helper()
	buf := thrift.NewTMemoryBuffer()
	if err := s.Write(context.Background(), thrift.NewTBinaryProtocolConf(buf, nil)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// peeker serves b as server.Request.PeekArgs does: a short message fails.
func peeker(b []byte) func(int) ([]byte, error) {
	return func(n int) ([]byte, error) {
		if n > len(b) {
			return nil, errors.New("message runs past the end of its frame")
		}
		return b[:n], nil
	}
}

func TestClassifySharedMethods(t *testing.T) {
	key := []byte("a key long enough to be skipped")
	parent06 := &cassandra.ColumnParent{ColumnFamily: "Standard1"}
	parent19 := &cassandra19.ColumnParent{ColumnFamily: "Standard1"}
	pred06 := &cassandra.SlicePredicate{ColumnNames: [][]byte{[]byte("c")}}
	pred19 := &cassandra19.SlicePredicate{ColumnNames: [][]byte{[]byte("c")}}
	path06 := &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}
	path19 := &cassandra19.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}
	auth06 := &cassandra.AuthenticationRequest{Credentials: map[string]string{"username": "u"}}
	auth19 := &cassandra19.AuthenticationRequest{Credentials: map[string]string{"username": "u"}}
	mut06 := map[string]map[string][]*cassandra.Mutation{"k": {"Standard1": {{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{Column: &cassandra.Column{Name: []byte("c"), Value: []byte("v"), Timestamp: 1}}}}}}
	mut19 := map[string]map[string][]*cassandra19.Mutation{"k": {"Standard1": {{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{Column: &cassandra19.Column{Name: []byte("c"), Value: []byte("v")}}}}}}
	cases := []struct {
		method   string
		v06, v19 thrift.TStruct
	}{
		{"login", &cassandra.CassandraLoginArgs{Keyspace: "Keyspace1", AuthRequest: auth06}, &cassandra19.CassandraLoginArgs{AuthRequest: auth19}},
		{"get", &cassandra.CassandraGetArgs{Keyspace: "Keyspace1", Key: string(key), ColumnPath: path06}, &cassandra19.CassandraGetArgs{Key: key, ColumnPath: path19}},
		{"get_slice", &cassandra.CassandraGetSliceArgs{Keyspace: "Keyspace1", Key: string(key), ColumnParent: parent06, Predicate: pred06}, &cassandra19.CassandraGetSliceArgs{Key: key, ColumnParent: parent19, Predicate: pred19}},
		{"get_count", &cassandra.CassandraGetCountArgs{Keyspace: "Keyspace1", Key: string(key), ColumnParent: parent06}, &cassandra19.CassandraGetCountArgs{Key: key, ColumnParent: parent19, Predicate: pred19}},
		{"insert", &cassandra.CassandraInsertArgs{Keyspace: "Keyspace1", Key: string(key), ColumnPath: path06, Value: []byte("v")}, &cassandra19.CassandraInsertArgs{Key: key, ColumnParent: parent19, Column: &cassandra19.Column{Name: []byte("c")}}},
		{"remove", &cassandra.CassandraRemoveArgs{Keyspace: "Keyspace1", Key: string(key), ColumnPath: path06}, &cassandra19.CassandraRemoveArgs{Key: key, ColumnPath: path19}},
		{"multiget_slice", &cassandra.CassandraMultigetSliceArgs{Keyspace: "Keyspace1", Keys: []string{"a", "b"}, ColumnParent: parent06, Predicate: pred06}, &cassandra19.CassandraMultigetSliceArgs{Keys: [][]byte{[]byte("a")}, ColumnParent: parent19, Predicate: pred19}},
		{"get_range_slices", &cassandra.CassandraGetRangeSlicesArgs{Keyspace: "Keyspace1", ColumnParent: parent06, Predicate: pred06, Range: &cassandra.KeyRange{Count: 10}}, &cassandra19.CassandraGetRangeSlicesArgs{ColumnParent: parent19, Predicate: pred19, Range: &cassandra19.KeyRange{Count: 10}}},
		{"batch_mutate", &cassandra.CassandraBatchMutateArgs{Keyspace: "Keyspace1", MutationMap: mut06}, &cassandra19.CassandraBatchMutateArgs{MutationMap: mut19}},
		{"describe_splits", &cassandra.CassandraDescribeSplitsArgs{StartToken: "0", EndToken: "1", KeysPerSplit: 10}, &cassandra19.CassandraDescribeSplitsArgs{CfName: "Standard1", StartToken: "0", EndToken: "1", KeysPerSplit: 10}},
	}
	for _, c := range cases {
		if got := Classify(c.method, peeker(encode(t, c.v06))); got != V06 {
			t.Errorf("%s with 0.6 arguments: %v", c.method, got)
		}
		if got := Classify(c.method, peeker(encode(t, c.v19))); got != V19 {
			t.Errorf("%s with 19.x arguments: %v", c.method, got)
		}
	}
}

// Field order on the wire is the writer's choice: a discriminating field
// sent after the others is still found.
func TestClassifyFindsALateField(t *testing.T) {
	// get_slice 19.x args with field 4 (consistency) first, then 1, then 2.
	b := []byte{
		byte(thrift.I32), 0, 4, 0, 0, 0, 1,
		byte(thrift.STRING), 0, 1, 0, 0, 0, 3, 'k', 'e', 'y',
		byte(thrift.STRUCT), 0, 2, byte(thrift.STOP),
		byte(thrift.STOP),
	}
	if got := Classify("get_slice", peeker(b)); got != V19 {
		t.Fatalf("got %v", got)
	}
}

func TestClassifyByName(t *testing.T) {
	for method, want := range map[string]Dialect{
		"multiget": V06, "get_range_slice": V06, "batch_insert": V06, "get_string_property": V06,
		"set_keyspace": V19, "system_add_keyspace": V19, "atomic_batch_mutate": V19, "describe_splits_ex": V19,
		"describe_keyspaces": Unknown, "describe_keyspace": Unknown, "describe_version": Unknown,
		"describe_cluster_name": Unknown, "describe_ring": Unknown, "describe_partitioner": Unknown,
		"no_such_method": Unknown,
	} {
		if got := Classify(method, peeker([]byte{byte(thrift.STOP)})); got != want {
			t.Errorf("%s: got %v, want %v", method, got, want)
		}
	}
}

// Arguments that lack the field, end early or are garbage show nothing.
func TestClassifyUnknown(t *testing.T) {
	full := encode(t, &cassandra19.CassandraGetSliceArgs{Key: []byte("k"), ColumnParent: &cassandra19.ColumnParent{ColumnFamily: "c"}, Predicate: &cassandra19.SlicePredicate{}})
	for name, b := range map[string][]byte{
		"empty struct":   {byte(thrift.STOP)},
		"truncated":      full[:5],
		"nothing":        nil,
		"negative size":  {byte(thrift.STRING), 0, 1, 0xff, 0xff, 0xff, 0xff},
		"bad field type": {0x33, 0, 1, 0},
		"deep nesting":   deep(200),
	} {
		if got := Classify("get_slice", peeker(b)); got != Unknown {
			t.Errorf("%s: got %v", name, got)
		}
	}
}

// deep is a struct field nested n levels deep before field 2.
func deep(n int) []byte {
	var b []byte
	for i := 0; i < n; i++ {
		b = append(b, byte(thrift.STRUCT), 0, 1)
	}
	for i := 0; i < n; i++ {
		b = append(b, byte(thrift.STOP))
	}
	return append(b, byte(thrift.STRUCT), 0, 2, byte(thrift.STOP), byte(thrift.STOP))
}

// A huge count of fixed-size elements is skipped arithmetically, not one
// by one, and fails on the message's end.
func TestClassifyHugeList(t *testing.T) {
	b := []byte{byte(thrift.LIST), 0, 1, byte(thrift.I64), 0x7f, 0xff, 0xff, 0xff, byte(thrift.STRUCT), 0, 2}
	if got := Classify("get_slice", peeker(b)); got != Unknown {
		t.Fatalf("got %v", got)
	}
}

func FuzzClassify(f *testing.F) {
	f.Add("get_slice", encode(f, &cassandra19.CassandraGetSliceArgs{Key: []byte("k"), ColumnParent: &cassandra19.ColumnParent{}, Predicate: &cassandra19.SlicePredicate{}}))
	f.Add("batch_mutate", encode(f, &cassandra.CassandraBatchMutateArgs{Keyspace: "k"}))
	f.Add("describe_splits", encode(f, &cassandra19.CassandraDescribeSplitsArgs{}))
	f.Fuzz(func(t *testing.T, method string, b []byte) {
		Classify(method, peeker(b))
	})
}
