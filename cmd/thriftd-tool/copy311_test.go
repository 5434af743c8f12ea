package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/internal/transfertest"
)

// Tables a Cassandra 3.11 user created in CQL WITH COMPACT STORAGE, the
// ones Thrift applications read beside their Thrift-created families,
// copy from the real 3.11.19 node into thriftd through Thrift: a dense
// table with CQL column names, one with two clustering columns (a
// composite comparator, one component descending), and a static one
// with typed columns; rows written with 2017 timestamps and a TTL of
// hours arrive live with their TTL, deleted rows and cells do not.
func TestCopyFromCassandra311CompactTables(t *testing.T) {
	t0 := time.Now()
	ref := testenv.Reference(t, "3.11", "random")
	cluster := gocql.NewCluster(testenv.ReferenceCQL(t, "3.11", "random"))
	cluster.Timeout, cluster.Consistency = 30*time.Second, gocql.One
	s, err := cluster.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	ks := fmt.Sprintf("copy311cql_%d", time.Now().UnixNano()%1e12)
	t.Cleanup(func() {
		if err := s.Query(`DROP KEYSPACE IF EXISTS ` + ks).Exec(); err != nil {
			t.Logf("drop %s: %v", ks, err)
		}
		s.Close()
	})
	old := transfertest.Backfill2017
	stmts := []string{
		`CREATE KEYSPACE KS WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`,
		`CREATE TABLE KS.events (k text, ts bigint, v bigint, PRIMARY KEY (k, ts)) WITH COMPACT STORAGE`,
		`CREATE TABLE KS.pairs (k blob, a text, b int, v blob, PRIMARY KEY (k, a, b)) WITH COMPACT STORAGE AND CLUSTERING ORDER BY (a ASC, b DESC)`,
		`CREATE TABLE KS.users (k text PRIMARY KEY, name text, age int) WITH COMPACT STORAGE`,
	}
	for i := range 30 {
		stmts = append(stmts,
			fmt.Sprintf(`INSERT INTO KS.events (k, ts, v) VALUES ('e%d', %d, %d)`, i%7, i, i*i),
			fmt.Sprintf(`INSERT INTO KS.events (k, ts, v) VALUES ('e%d', %d, %d) USING TIMESTAMP %d AND TTL %d`, i%7, 1000+i, -i, old+int64(i), 3600+i*60),
			fmt.Sprintf(`INSERT INTO KS.pairs (k, a, b, v) VALUES (0x%02x, 'a%d', %d, 0x%02x) USING TTL %d`, i%5, i%3, i, i, 7200),
			fmt.Sprintf(`INSERT INTO KS.users (k, name, age) VALUES ('u%d', 'name %d', %d) USING TIMESTAMP %d AND TTL 10800`, i, i, 20+i, old+int64(i)*1000),
		)
	}
	stmts = append(stmts,
		`DELETE FROM KS.events WHERE k = 'e3'`,
		`DELETE FROM KS.events WHERE k = 'e4' AND ts = 4`,
		`DELETE age FROM KS.users WHERE k = 'u5'`,
	)
	for _, q := range stmts {
		if err := s.Query(strings.ReplaceAll(q, "KS", ks)).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	dst := node19(t)
	_, errOut, code := tool(t, t.TempDir(), "copy", "--from", ref, "--to", dst.Addr, "--keyspace", ks, "--progress", "off", "--page-size", "4", "--page-rows", "3")
	if code != 0 {
		t.Fatalf("copy: exit %d: %s", code, errOut)
	}
	slack := int32(time.Since(t0)/time.Second) + 2
	src, tgt := transfertest.Dial19(t, ref), transfertest.Dial19(t, dst.Addr)
	for _, c := range []*transfertest.Client19{src, tgt} {
		if err := c.SetKeyspace(context.Background(), ks); err != nil {
			t.Fatal(err)
		}
	}
	// events: 60 cells, less row e3's 8 and one of e4; users: a name and
	// an age a row, less u5's age.
	for cf, cells := range map[string]int{"events": 60 - 8 - 1, "pairs": 30, "users": 30*2 - 1} {
		want := transfertest.Dump19(t, src, cf)
		if len(want) != cells {
			t.Errorf("%s: the source serves %d cells through Thrift, want %d", cf, len(want), cells)
		}
		transfertest.Same19(t, cf, transfertest.Dump19(t, tgt, cf), want, slack)
	}
}
