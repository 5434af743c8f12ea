package cqlstore

import (
	"context"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// ClusterAuthorizer is the authorizer the contacted node enforces, as its
// system_views.settings names it (Cassandra 4.0 and later):
// "AllowAllAuthorizer", "CassandraAuthorizer" or a class of the
// operator's. known is false when the node cannot say (Cassandra 3.11 has
// no system_views, or the row is missing); err is any other failure.
func (st *Store) ClusterAuthorizer(ctx context.Context) (name string, known bool, err error) {
	err = st.session.Query(`SELECT value FROM system_views.settings WHERE name = 'authorizer'`).
		Consistency(gocql.LocalOne).WithContext(ctx).Scan(&name)
	switch {
	case err == gocql.ErrNotFound:
		return "", false, nil
	case err != nil && (strings.Contains(err.Error(), "system_views") || strings.Contains(err.Error(), "unconfigured table")):
		return "", false, nil
	case err != nil:
		return "", false, err
	}
	return name, true, nil
}
