package testenv

import (
	"context"
	"testing"
	"time"
)

// TestTruncateAndDropPrefix creates two keyspaces under a fresh prefix
// and one under another, fills them, and checks that TruncatePrefix
// empties only the prefix's tables (thriftd's schema table kept) and
// DropPrefix drops only its keyspaces.
func TestTruncateAndDropPrefix(t *testing.T) {
	points := Cassandra(t, "Murmur3Partitioner")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s, err := cqlSession(points)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	prefix, other := CassandraPrefix(t), CassandraPrefix(t)
	exec := func(q string) {
		t.Helper()
		if err := s.Query(q).WithContext(ctx).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	count := func(table string) int {
		t.Helper()
		var n int
		if err := s.Query(`SELECT count(*) FROM ` + table).WithContext(ctx).Scan(&n); err != nil {
			t.Fatalf("count %s: %v", table, err)
		}
		return n
	}
	var tables []string
	for _, ks := range []string{prefix + "a", prefix + "b", other + "a"} {
		exec(`CREATE KEYSPACE ` + ks + ` WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`)
		for _, tb := range []string{"filled", "nothing", thriftdSchemaTable} {
			exec(`CREATE TABLE ` + ks + `.` + tb + ` (key blob PRIMARY KEY, value blob)`)
		}
		for _, tb := range []string{"filled", thriftdSchemaTable} {
			exec(`INSERT INTO ` + ks + `.` + tb + ` (key, value) VALUES (0x01, 0x02)`)
			tables = append(tables, ks+"."+tb)
		}
	}
	t.Cleanup(func() { DropPrefix(context.Background(), points, other) })

	start := time.Now()
	if err := TruncatePrefix(ctx, points, prefix); err != nil {
		t.Fatal(err)
	}
	t.Logf("TruncatePrefix of 2 keyspaces took %v", time.Since(start))
	want := map[string]int{
		prefix + "a.filled": 0, prefix + "a." + thriftdSchemaTable: 1,
		prefix + "b.filled": 0, prefix + "b." + thriftdSchemaTable: 1,
		other + "a.filled": 1, other + "a." + thriftdSchemaTable: 1,
	}
	for _, tb := range tables {
		if got := count(tb); got != want[tb] {
			t.Errorf("after truncating %s, %s has %d rows, want %d", prefix, tb, got, want[tb])
		}
	}
	var durable bool
	if err := s.Query(`SELECT durable_writes FROM system_schema.keyspaces WHERE keyspace_name = ?`, prefix+"a").WithContext(ctx).Scan(&durable); err != nil || durable {
		t.Errorf("durable_writes of %sa = %v, %v; want false", prefix, durable, err)
	}

	start = time.Now()
	dropped, err := DropPrefix(ctx, points, prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("DropPrefix of 2 keyspaces took %v", time.Since(start))
	if len(dropped) != 2 || dropped[0] != prefix+"a" || dropped[1] != prefix+"b" {
		t.Errorf("dropped %v", dropped)
	}
	if got := count(other + "a.filled"); got != 1 {
		t.Errorf("another prefix's table lost its row: %d", got)
	}
	if _, err := DropPrefix(ctx, points, ""); err == nil {
		t.Error("DropPrefix of the empty prefix was allowed")
	}
	if err := TruncatePrefix(ctx, points, ""); err == nil {
		t.Error("TruncatePrefix of the empty prefix was allowed")
	}
}
