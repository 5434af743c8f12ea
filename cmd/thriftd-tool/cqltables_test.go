package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine/cqlstore"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/internal/transfertest"
)

// legacyKeyspace creates, with CQL on the real Cassandra 5 test node, a
// keyspace as an upgrade from 3.11 leaves it (the post-DROP COMPACT
// STORAGE shapes, built directly since Cassandra 5 cannot create compact
// tables), runs stmts in it (KS. names it), and drops it at the end.
func legacyKeyspace(t *testing.T, stmts ...string) (points string, s *gocql.Session, ks string) {
	t.Helper()
	points = testenv.Cassandra(t, "org.apache.cassandra.dht.RandomPartitioner")
	s, err := cqlstore.Cluster{Hosts: strings.Split(points, ","), Timeout: 20 * time.Second}.Connect()
	if err != nil {
		t.Fatal(err)
	}
	ks = testenv.CassandraPrefix(t) + "legacy"
	t.Cleanup(func() {
		if err := s.Query(`DROP KEYSPACE IF EXISTS ` + ks).Exec(); err != nil {
			t.Errorf("drop %s: %v", ks, err)
		}
		s.Close()
	})
	stmts = append([]string{`CREATE KEYSPACE ` + ks + ` WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}`}, stmts...)
	for _, stmt := range stmts {
		if err := s.Query(strings.ReplaceAll(stmt, "KS.", ks+".")).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	return points, s, ks
}

var legacyTables = []string{
	`CREATE TABLE KS.events (key blob, column1 text, value text, PRIMARY KEY (key, column1))`,
	`CREATE TABLE KS.timeline (key blob, column1 bigint, value blob, PRIMARY KEY (key, column1)) WITH CLUSTERING ORDER BY (column1 DESC)`,
	`CREATE TABLE KS.pairs (key blob, column1 text, column2 int, value blob, PRIMARY KEY (key, column1, column2))`,
	`CREATE TABLE KS.users (id uuid PRIMARY KEY, name text, email text)`,
}

// cql-tables reports which tables of a live keyspace thriftd serves, and
// why not, in text and in JSON.
func TestCQLTablesReportsALiveKeyspace(t *testing.T) {
	points, _, ks := legacyKeyspace(t, legacyTables...)
	dir := t.TempDir()
	out, errOut, code := tool(t, dir, "cql-tables", "--cassandra", points, ks)
	if code != 0 {
		t.Fatalf("cql-tables: exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"events    yes     dynamic",
		"timeline  yes     dynamic    ReversedType(org.apache.cassandra.db.marshal.LongType)",
		"pairs     yes     composite  CompositeType(",
		"users     no      -",
		"no clustering column",
		"3 of 4 tables of " + ks + " served in place",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("cql-tables output lacks %q:\n%s", want, out)
		}
	}
	out, errOut, code = tool(t, dir, "cql-tables", "--json", "--cassandra", points, ks)
	if code != 0 {
		t.Fatalf("cql-tables --json: exit %d: %s", code, errOut)
	}
	var rep struct {
		Keyspace string
		Tables   []cqlTable
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Keyspace != ks || len(rep.Tables) != 4 {
		t.Fatalf("cql-tables --json: %v: %s", err, out)
	}
	if r := rep.Tables[0]; r.Table != "events" || !r.Served || r.Comparator != "org.apache.cassandra.db.marshal.UTF8Type" || r.Validator != "org.apache.cassandra.db.marshal.UTF8Type" {
		t.Errorf("events: %+v", r)
	}
	if _, errOut, code := tool(t, dir, "cql-tables", "--cassandra", points, ks+"_missing"); code != 1 || !strings.Contains(errOut, "does not exist") {
		t.Errorf("a missing keyspace: exit %d: %s", code, errOut)
	}
}

// thriftd serves an existing keyspace in place: CQL writes, the 19.x
// client reads with the same timestamps and TTLs, and the reverse; the
// keyspace is described from its CQL schema, and thriftd refuses to drop
// it.
func TestThriftdServesCQLTablesInPlace(t *testing.T) {
	_, s, ks := legacyKeyspace(t, append(legacyTables,
		`INSERT INTO KS.events (key, column1, value) VALUES (0x6b31, 'login', 'alice') USING TIMESTAMP 1111`,
		`INSERT INTO KS.events (key, column1, value) VALUES (0x6b31, 'logout', 'bob') USING TIMESTAMP 2222 AND TTL 8000`,
		`INSERT INTO KS.timeline (key, column1, value) VALUES (0x74, 1, 0x01) USING TIMESTAMP 1`,
		`INSERT INTO KS.timeline (key, column1, value) VALUES (0x74, 2, 0x02) USING TIMESTAMP 2`,
		`CREATE TABLE KS.profiles (key blob, column1 text, value blob, email text static, PRIMARY KEY (key, column1))`,
		`INSERT INTO KS.profiles (key, email) VALUES (0x70, 'a@example.org') USING TIMESTAMP 9`,
		`INSERT INTO KS.pairs (key, column1, column2, value) VALUES (0x71, 'x', 7, 0x07) USING TIMESTAMP 12`,
	)...)
	dir := t.TempDir()
	conf := transfertest.Config(t, dir, "RandomPartitioner")
	n := testenv.NewNode(t, thriftdBin, conf, append(testenv.CassandraStoreFlags(t, conf), "-api", "19.x", "-cassandra-adopt", ks)...)
	n.Start()
	c := n.Client19(true)
	ctx := context.Background()

	kd, err := c.DescribeKeyspace(ctx, ks)
	if err != nil {
		t.Fatalf("describe_keyspace: %v\n%s", err, n.Tail(30))
	}
	const m = "org.apache.cassandra.db.marshal."
	got := map[string]string{}
	for _, cf := range kd.CfDefs {
		got[cf.Name] = cf.ComparatorType + " " + cf.GetDefaultValidationClass() + " " + cf.GetKeyValidationClass()
		for _, c := range cf.ColumnMetadata {
			got[cf.Name] += " " + string(c.Name) + "=" + c.ValidationClass
		}
	}
	want := map[string]string{
		"pairs":    m + "CompositeType(" + m + "UTF8Type," + m + "Int32Type) " + m + "BytesType " + m + "BytesType",
		"profiles": m + "UTF8Type " + m + "BytesType " + m + "BytesType email=" + m + "UTF8Type",
		"events":   m + "UTF8Type " + m + "UTF8Type " + m + "BytesType",
		"timeline": m + "ReversedType(" + m + "LongType) " + m + "BytesType " + m + "BytesType",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || kd.StrategyClass != "org.apache.cassandra.locator.SimpleStrategy" {
		t.Fatalf("describe_keyspace: %s %v, want %v", kd.StrategyClass, got, want)
	}
	if err := c.SetKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}

	// CQL wrote; the 19.x client reads.
	all := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 100}}
	cols, err := c.GetSlice(ctx, []byte("k1"), &cassandra19.ColumnParent{ColumnFamily: "events"}, all, cassandra19.ConsistencyLevel_ONE)
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != 2 || string(cols[0].Column.Name) != "login" || string(cols[0].Column.Value) != "alice" || cols[0].Column.GetTimestamp() != 1111 || cols[0].Column.TTL != nil ||
		string(cols[1].Column.Name) != "logout" || cols[1].Column.GetTimestamp() != 2222 || cols[1].Column.GetTTL() <= 7900 || cols[1].Column.GetTTL() > 8000 {
		t.Fatalf("get_slice of CQL's writes: %v", cols)
	}
	cols, err = c.GetSlice(ctx, []byte("t"), &cassandra19.ColumnParent{ColumnFamily: "timeline"}, all, cassandra19.ConsistencyLevel_ONE)
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != 2 || cols[0].Column.Name[7] != 2 || cols[1].Column.Name[7] != 1 {
		t.Fatalf("timeline (ReversedType) in the wrong order: %v", cols)
	}
	cols, err = c.GetSlice(ctx, []byte("p"), &cassandra19.ColumnParent{ColumnFamily: "profiles"}, all, cassandra19.ConsistencyLevel_ONE)
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != 1 || string(cols[0].Column.Name) != "email" || string(cols[0].Column.Value) != "a@example.org" || cols[0].Column.GetTimestamp() != 9 {
		t.Fatalf("profiles (a static column): %v", cols)
	}

	// The 19.x client writes; CQL reads.
	ts, ttl := int64(3333), int32(6000)
	err = c.Insert(ctx, []byte("k2"), &cassandra19.ColumnParent{ColumnFamily: "events"},
		&cassandra19.Column{Name: []byte("signup"), Value: []byte("carol"), Timestamp: &ts, TTL: &ttl}, cassandra19.ConsistencyLevel_ONE)
	if err != nil {
		t.Fatal(err)
	}
	var name, value string
	var wt int64
	var left int
	if err := s.Query(`SELECT column1, value, WRITETIME(value), TTL(value) FROM `+ks+`.events WHERE key = ?`, []byte("k2")).Scan(&name, &value, &wt, &left); err != nil {
		t.Fatal(err)
	}
	if name != "signup" || value != "carol" || wt != 3333 || left <= 5900 || left > 6000 {
		t.Fatalf("CQL reads the 19.x write as %s=%s at %d, ttl %d", name, value, wt, left)
	}
	// A composite name is the row of its components.
	cols, err = c.GetSlice(ctx, []byte("q"), &cassandra19.ColumnParent{ColumnFamily: "pairs"}, all, cassandra19.ConsistencyLevel_ONE)
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != 1 || string(cols[0].Column.Name) != "\x00\x01x\x00\x00\x04\x00\x00\x00\x07\x00" || cols[0].Column.GetTimestamp() != 12 {
		t.Fatalf("pairs (composite): %v", cols)
	}
	// A declared column is the table's static column.
	err = c.Insert(ctx, []byte("p"), &cassandra19.ColumnParent{ColumnFamily: "profiles"},
		&cassandra19.Column{Name: []byte("email"), Value: []byte("b@example.org"), Timestamp: &ts}, cassandra19.ConsistencyLevel_ONE)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Query(`SELECT email, WRITETIME(email) FROM `+ks+`.profiles WHERE key = 0x70 LIMIT 1`).Scan(&value, &wt); err != nil || value != "b@example.org" || wt != 3333 {
		t.Fatalf("CQL reads the static column as %q at %d (%v)", value, wt, err)
	}
	// The cluster checks the table's own types: a value that is not
	// UTF-8 is refused before it reaches the table.
	if err := c.Insert(ctx, []byte("k3"), &cassandra19.ColumnParent{ColumnFamily: "events"},
		&cassandra19.Column{Name: []byte("x"), Value: []byte{0xff}, Timestamp: &ts}, cassandra19.ConsistencyLevel_ONE); err == nil {
		t.Error("a value that is not UTF-8 was written into a text column")
	}

	// thriftd never changes an adopted keyspace's schema.
	_, err = c.SystemDropKeyspace(ctx, ks)
	var ire *cassandra19.InvalidRequestException
	if !errors.As(err, &ire) || !strings.Contains(ire.Why, "serves in place") {
		t.Fatalf("system_drop_keyspace of an adopted keyspace: %v", err)
	}
	var tables int
	if err := s.Query(`SELECT count(*) FROM system_schema.tables WHERE keyspace_name = ?`, ks).Scan(&tables); err != nil || tables != 5 {
		t.Fatalf("the keyspace holds %d tables (%v) after the refused drop", tables, err)
	}
	// The tables it does not serve are named in its log with the reason.
	if len(n.Records(map[string]string{"msg": "adopted table not served", "table": "users"})) != 1 {
		t.Errorf("the refusal of a CQL table is not logged:\n%s", n.Logs())
	}
}
