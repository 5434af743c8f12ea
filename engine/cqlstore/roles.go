package cqlstore

import (
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// Session is the store's CQL session, for readers of the cluster's own
// tables that are not the store's business, such as the roles and
// permissions in system_auth (cmd/thriftd's adapter for the authorizer).
func (st *Store) Session() *gocql.Session { return st.session }

// ThriftKeyspace is the Thrift keyspace a stored CQL keyspace serves: an
// adopted keyspace under its own name (adopted true), a keyspace of the
// store's prefix under its name after the prefix; ok is false for a CQL
// keyspace this store does not serve.
func (st *Store) ThriftKeyspace(stored string) (name string, adopted, ok bool) {
	for _, a := range st.Adopted() {
		if a.Name == stored {
			return stored, true, true
		}
	}
	name, ok = strings.CutPrefix(stored, st.opts.Prefix)
	if !ok || name == "" {
		return "", false, false
	}
	return name, false, true
}
