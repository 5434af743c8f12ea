package testenv

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// thriftdSchemaTable is the table in which thriftd records each keyspace's
// partitioner and comparators; a prefix reused for the same configuration
// keeps it.
const thriftdSchemaTable = "thriftd_schema"

// cqlSession connects to the contact points ("HOST:PORT,...").
func cqlSession(points string) (*gocql.Session, error) {
	return newSession(gocql.NewCluster(strings.Split(points, ",")...), points, 60*time.Second)
}

// newSession opens a session of c, at consistency ONE, with a request
// timeout of timeout; points names the nodes in its error.
func newSession(c *gocql.ClusterConfig, points string, timeout time.Duration) (*gocql.Session, error) {
	c.Timeout = timeout
	c.ConnectTimeout = 10 * time.Second
	c.Consistency = gocql.One
	s, err := c.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connect to Cassandra at %s: %w", points, err)
	}
	return s, nil
}

// prefixKeyspaces lists the keyspaces whose names start with prefix, and
// their tables.
func prefixKeyspaces(ctx context.Context, s *gocql.Session, prefix string) (map[string][]string, map[string]bool, error) {
	tables := map[string][]string{}
	durable := map[string]bool{}
	iter := s.Query(`SELECT keyspace_name, durable_writes FROM system_schema.keyspaces`).WithContext(ctx).Iter()
	var ks string
	var dw bool
	for iter.Scan(&ks, &dw) {
		if strings.HasPrefix(ks, prefix) {
			tables[ks] = nil
			durable[ks] = dw
		}
	}
	if err := iter.Close(); err != nil {
		return nil, nil, fmt.Errorf("list keyspaces: %w", err)
	}
	iter = s.Query(`SELECT keyspace_name, table_name FROM system_schema.tables`).WithContext(ctx).Iter()
	var table string
	for iter.Scan(&ks, &table) {
		if _, ok := tables[ks]; ok {
			tables[ks] = append(tables[ks], table)
		}
	}
	if err := iter.Close(); err != nil {
		return nil, nil, fmt.Errorf("list tables: %w", err)
	}
	return tables, durable, nil
}

func quoteCQL(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// TruncatePrefix empties every table of the keyspaces whose names start
// with prefix but thriftd's own schema table, so that a prefix can serve
// another test on the same configuration as if fresh. It
// first turns off durable writes of those keyspaces (a test node's data
// need not survive a crash of Cassandra): TRUNCATE then drops memtables
// instead of flushing them, some 20 times faster. Only tables holding a
// row are truncated. An empty prefix is refused.
func TruncatePrefix(ctx context.Context, points, prefix string) error {
	if prefix == "" {
		return fmt.Errorf("refusing to truncate the keyspaces of an empty prefix")
	}
	s, err := cqlSession(points)
	if err != nil {
		return err
	}
	defer s.Close()
	tables, durable, err := prefixKeyspaces(ctx, s, prefix)
	if err != nil {
		return err
	}
	for _, ks := range sortedKeys(tables) {
		if durable[ks] {
			if err := s.Query(`ALTER KEYSPACE ` + quoteCQL(ks) + ` WITH durable_writes = false`).WithContext(ctx).Exec(); err != nil {
				return fmt.Errorf("alter keyspace %s: %w", ks, err)
			}
		}
		for _, table := range tables[ks] {
			if table == thriftdSchemaTable {
				continue
			}
			name := quoteCQL(ks) + "." + quoteCQL(table)
			iter := s.Query(`SELECT * FROM ` + name + ` LIMIT 1`).WithContext(ctx).Iter()
			rows := iter.NumRows()
			if err := iter.Close(); err == nil && rows == 0 {
				continue
			}
			if err := s.Query(`TRUNCATE ` + name).WithContext(ctx).Exec(); err != nil {
				return fmt.Errorf("truncate %s: %w", name, err)
			}
		}
	}
	return nil
}

// DropPrefix drops every keyspace whose name starts with prefix. An empty
// prefix is refused.
func DropPrefix(ctx context.Context, points, prefix string) ([]string, error) {
	if prefix == "" {
		return nil, fmt.Errorf("refusing to drop the keyspaces of an empty prefix")
	}
	s, err := cqlSession(points)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	tables, _, err := prefixKeyspaces(ctx, s, prefix)
	if err != nil {
		return nil, err
	}
	dropped := sortedKeys(tables)
	for _, ks := range dropped {
		if err := s.Query(`DROP KEYSPACE IF EXISTS ` + quoteCQL(ks)).WithContext(ctx).Exec(); err != nil {
			return nil, fmt.Errorf("drop keyspace %s: %w", ks, err)
		}
	}
	return dropped, nil
}

func sortedKeys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
