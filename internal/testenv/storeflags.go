package testenv

import "testing"

// CassandraStoreFlags returns the flags that make a thriftd on config store
// into the test cluster of its partitioner under a keyspace prefix of the
// test's own (-cassandra POINTS -cassandra-prefix P), whatever
// THRIFTD_TEST_BACKEND says: for tests that need both backends at once.
func CassandraStoreFlags(t testing.TB, config string) []string {
	t.Helper()
	return cassandraFlags(t, config)
}
