package fuzz

import (
	"encoding/binary"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// seeds are calls as a 0.6 client makes them, valid against the 0.6 test
// configuration, so that the fuzzer starts from arguments that reach past
// decoding into validation and storage. Maps have at most one entry, so
// their encoding does not depend on iteration order.
var seeds = map[string][]thrift.TStruct{
	"login": {&cassandra.CassandraLoginArgs{Keyspace: ks1, AuthRequest: &cassandra.AuthenticationRequest{Credentials: map[string]string{"username": "jsmith"}}}},
	"get": {
		&cassandra.CassandraGetArgs{Keyspace: ks1, Key: "key1", ColumnPath: std("c"), ConsistencyLevel: one},
		&cassandra.CassandraGetArgs{Keyspace: ks1, Key: "key1", ColumnPath: &cassandra.ColumnPath{ColumnFamily: "Super1", SuperColumn: []byte("sc"), Column: long(1)}, ConsistencyLevel: one},
	},
	"get_slice": {
		&cassandra.CassandraGetSliceArgs{Keyspace: ks1, Key: "key1", ColumnParent: parent("Standard1"), Predicate: sliceRange(nil, nil, 100), ConsistencyLevel: one},
		&cassandra.CassandraGetSliceArgs{Keyspace: ks1, Key: "key1", ColumnParent: parent("StandardLong1"), Predicate: sliceRange(long(1), long(9), 5), ConsistencyLevel: one},
		&cassandra.CassandraGetSliceArgs{Keyspace: ks1, Key: "key1", ColumnParent: &cassandra.ColumnParent{ColumnFamily: "Super1", SuperColumn: []byte("sc")}, Predicate: &cassandra.SlicePredicate{ColumnNames: [][]byte{long(1), long(2)}}, ConsistencyLevel: one},
	},
	"multiget":       {&cassandra.CassandraMultigetArgs{Keyspace: ks1, Keys: []string{"key1", "key2"}, ColumnPath: std("c"), ConsistencyLevel: one}},
	"multiget_slice": {&cassandra.CassandraMultigetSliceArgs{Keyspace: ks1, Keys: []string{"key1", "key2"}, ColumnParent: parent("Super1"), Predicate: sliceRange(nil, nil, 10), ConsistencyLevel: one}},
	"get_count":      {&cassandra.CassandraGetCountArgs{Keyspace: ks1, Key: "key1", ColumnParent: parent("Standard1"), ConsistencyLevel: one}},
	"get_range_slice": {
		&cassandra.CassandraGetRangeSliceArgs{Keyspace: ks1, ColumnParent: parent("Standard1"), Predicate: sliceRange(nil, nil, 10), StartKey: "", FinishKey: "", RowCount: 10, ConsistencyLevel: one},
	},
	"get_range_slices": {
		&cassandra.CassandraGetRangeSlicesArgs{Keyspace: ks1, ColumnParent: parent("Standard1"), Predicate: sliceRange(nil, nil, 10), Range: &cassandra.KeyRange{StartKey: str("a"), EndKey: str("z"), Count: 10}, ConsistencyLevel: one},
		&cassandra.CassandraGetRangeSlicesArgs{Keyspace: ks1, ColumnParent: parent("Super1"), Predicate: sliceRange(nil, nil, 10), Range: &cassandra.KeyRange{StartToken: str(""), EndToken: str(""), Count: 10}, ConsistencyLevel: one},
	},
	"insert": {
		&cassandra.CassandraInsertArgs{Keyspace: ks1, Key: "key1", ColumnPath: std("c"), Value: []byte("value"), Timestamp: 1, ConsistencyLevel: one},
		&cassandra.CassandraInsertArgs{Keyspace: ks1, Key: "key1", ColumnPath: &cassandra.ColumnPath{ColumnFamily: "Super1", SuperColumn: []byte("sc"), Column: long(1)}, Value: []byte("value"), Timestamp: 1, ConsistencyLevel: one},
	},
	"batch_insert": {
		&cassandra.CassandraBatchInsertArgs{Keyspace: ks1, Key: "key1", Cfmap: map[string][]*cassandra.ColumnOrSuperColumn{"Standard1": {{Column: col("c", "v")}}}, ConsistencyLevel: one},
		&cassandra.CassandraBatchInsertArgs{Keyspace: ks1, Key: "key1", Cfmap: map[string][]*cassandra.ColumnOrSuperColumn{"Super1": {{SuperColumn: &cassandra.SuperColumn{Name: []byte("sc"), Columns: []*cassandra.Column{{Name: long(1), Value: []byte("v"), Timestamp: 1}}}}}}, ConsistencyLevel: one},
	},
	"remove": {
		&cassandra.CassandraRemoveArgs{Keyspace: ks1, Key: "key1", ColumnPath: std("c"), Timestamp: 2, ConsistencyLevel: one},
		&cassandra.CassandraRemoveArgs{Keyspace: ks1, Key: "key1", ColumnPath: &cassandra.ColumnPath{ColumnFamily: "Super1", SuperColumn: []byte("sc")}, Timestamp: 2, ConsistencyLevel: one},
	},
	"batch_mutate": {
		&cassandra.CassandraBatchMutateArgs{Keyspace: ks1, MutationMap: map[string]map[string][]*cassandra.Mutation{"key1": {"Standard1": {
			{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{Column: col("c", "v")}},
			{Deletion: &cassandra.Deletion{Timestamp: 2, Predicate: &cassandra.SlicePredicate{ColumnNames: [][]byte{[]byte("d")}}}},
		}}}, ConsistencyLevel: one},
		&cassandra.CassandraBatchMutateArgs{Keyspace: ks1, MutationMap: map[string]map[string][]*cassandra.Mutation{"key2": {"Super1": {
			{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{SuperColumn: &cassandra.SuperColumn{Name: []byte("sc"), Columns: []*cassandra.Column{{Name: long(1), Value: []byte("v"), Timestamp: 1}}}}},
			{Deletion: &cassandra.Deletion{Timestamp: 2, SuperColumn: []byte("sc2")}},
		}}}, ConsistencyLevel: one},
	},
	"get_string_property":      {&cassandra.CassandraGetStringPropertyArgs{Property: "cluster name"}},
	"get_string_list_property": {&cassandra.CassandraGetStringListPropertyArgs{Property: "keyspaces"}},
	"describe_keyspaces":       {&cassandra.CassandraDescribeKeyspacesArgs{}},
	"describe_cluster_name":    {&cassandra.CassandraDescribeClusterNameArgs{}},
	"describe_version":         {&cassandra.CassandraDescribeVersionArgs{}},
	"describe_ring":            {&cassandra.CassandraDescribeRingArgs{Keyspace: ks1}},
	"describe_partitioner":     {&cassandra.CassandraDescribePartitionerArgs{}},
	"describe_keyspace":        {&cassandra.CassandraDescribeKeyspaceArgs{Keyspace: ks1}},
	"describe_splits":          {&cassandra.CassandraDescribeSplitsArgs{StartToken: "a", EndToken: "z", KeysPerSplit: 10}},
}

// results make the result struct a REPLY to each method decodes into.
var results = map[string]func() thrift.TStruct{
	"login":                    func() thrift.TStruct { return cassandra.NewCassandraLoginResult() },
	"get":                      func() thrift.TStruct { return cassandra.NewCassandraGetResult() },
	"get_slice":                func() thrift.TStruct { return cassandra.NewCassandraGetSliceResult() },
	"multiget":                 func() thrift.TStruct { return cassandra.NewCassandraMultigetResult() },
	"multiget_slice":           func() thrift.TStruct { return cassandra.NewCassandraMultigetSliceResult() },
	"get_count":                func() thrift.TStruct { return cassandra.NewCassandraGetCountResult() },
	"get_range_slice":          func() thrift.TStruct { return cassandra.NewCassandraGetRangeSliceResult() },
	"get_range_slices":         func() thrift.TStruct { return cassandra.NewCassandraGetRangeSlicesResult() },
	"insert":                   func() thrift.TStruct { return cassandra.NewCassandraInsertResult() },
	"batch_insert":             func() thrift.TStruct { return cassandra.NewCassandraBatchInsertResult() },
	"remove":                   func() thrift.TStruct { return cassandra.NewCassandraRemoveResult() },
	"batch_mutate":             func() thrift.TStruct { return cassandra.NewCassandraBatchMutateResult() },
	"get_string_property":      func() thrift.TStruct { return cassandra.NewCassandraGetStringPropertyResult() },
	"get_string_list_property": func() thrift.TStruct { return cassandra.NewCassandraGetStringListPropertyResult() },
	"describe_keyspaces":       func() thrift.TStruct { return cassandra.NewCassandraDescribeKeyspacesResult() },
	"describe_cluster_name":    func() thrift.TStruct { return cassandra.NewCassandraDescribeClusterNameResult() },
	"describe_version":         func() thrift.TStruct { return cassandra.NewCassandraDescribeVersionResult() },
	"describe_ring":            func() thrift.TStruct { return cassandra.NewCassandraDescribeRingResult() },
	"describe_partitioner":     func() thrift.TStruct { return cassandra.NewCassandraDescribePartitionerResult() },
	"describe_keyspace":        func() thrift.TStruct { return cassandra.NewCassandraDescribeKeyspaceResult() },
	"describe_splits":          func() thrift.TStruct { return cassandra.NewCassandraDescribeSplitsResult() },
}

const ks1 = "Keyspace1"

var one = cassandra.ConsistencyLevel_ONE

func std(column string) *cassandra.ColumnPath {
	return &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte(column)}
}

func parent(cf string) *cassandra.ColumnParent { return &cassandra.ColumnParent{ColumnFamily: cf} }

func sliceRange(start, finish []byte, count int32) *cassandra.SlicePredicate {
	if start == nil {
		start = []byte{}
	}
	if finish == nil {
		finish = []byte{}
	}
	return &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: start, Finish: finish, Count: count}}
}

func col(name, value string) *cassandra.Column {
	return &cassandra.Column{Name: []byte(name), Value: []byte(value), Timestamp: 1}
}

func long(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

func str(s string) *string { return &s }
