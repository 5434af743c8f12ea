package handler19

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseSchemaSelect(t *testing.T) {
	for _, tc := range []struct {
		q, ks string
		ok    bool
		want  schemaSelect
	}{
		{q: "SELECT columnfamily_name, comparator, default_validator, key_validator FROM system.schema_columnfamilies WHERE keyspace_name='Ks1'", ok: true,
			want: schemaSelect{columns: []string{"columnfamily_name", "comparator", "default_validator", "key_validator"}, table: "schema_columnfamilies", where: map[string]string{"keyspace_name": "Ks1"}}},
		{q: "select * from System.Schema_Keyspaces;", ok: true, want: schemaSelect{table: "schema_keyspaces"}},
		{q: `SELECT "column_name" FROM "system"."schema_columns" WHERE keyspace_name = 'a''b' AND columnfamily_name = 'C'`, ok: true,
			want: schemaSelect{columns: []string{"column_name"}, table: "schema_columns", where: map[string]string{"keyspace_name": "a'b", "columnfamily_name": "C"}}},
		{q: "SELECT * FROM schema_keyspaces", ks: "system", ok: true, want: schemaSelect{table: "schema_keyspaces"}},
		{q: "SELECT * FROM schema_keyspaces", ks: "Ks1"},
		{q: "SELECT * FROM other.schema_keyspaces"},
		{q: "SELECT * FROM system.schema_keyspaces WHERE keyspace_name = 'a' AND keyspace_name = 'b'"},
		{q: "SELECT * FROM system.schema_keyspaces WHERE keyspace_name = 3"},
		{q: "SELECT * FROM system.schema_keyspaces LIMIT 3", ok: true, want: schemaSelect{table: "schema_keyspaces", limit: 3}},
		{q: "SELECT * FROM system.schema_keyspaces WHERE keyspace_name = 'k' LIMIT 0;", ok: true, want: schemaSelect{table: "schema_keyspaces", where: map[string]string{"keyspace_name": "k"}, limit: -1}},
		{q: "SELECT * FROM system.schema_keyspaces LIMIT -2", ok: true, want: schemaSelect{table: "schema_keyspaces", limit: -1}},
		{q: "SELECT * FROM system.schema_keyspaces LIMIT 99999999999"},
		{q: "SELECT * FROM system.schema_keyspaces LIMIT x"},
		{q: "SELECT * FROM system.schema_keyspaces LIMIT"},
		{q: "SELECT 1 FROM system.schema_keyspaces"},
		{q: "SELECT FROM system.schema_keyspaces"},
		{q: "SELECT a, FROM system.schema_keyspaces"},
		{q: "INSERT INTO system.schema_keyspaces (keyspace_name) VALUES ('x')"},
		{q: "SELECT * FROM system.schema_keyspaces WHERE keyspace_name = 'unterminated"},
		{q: ""},
	} {
		got, ok := parseSchemaSelect(tc.q, tc.ks)
		if ok != tc.ok {
			t.Errorf("%q: ok %v, want %v", tc.q, ok, tc.ok)
			continue
		}
		if ok && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v, want %+v", tc.q, got, tc.want)
		}
	}
}

func TestSetCQLVersion(t *testing.T) {
	for _, tc := range []struct {
		v     string
		major int
		why   string
	}{
		{v: "3.0.0", major: 3}, {v: "3.0.5", major: 3}, {v: "2.0.0", major: 2}, {v: "3.0.0-rc1", major: 3},
		{v: "1.0.0", why: "Provided version 1.0.0 is not supported by this server (supported: 2.0.0, 3.0.5)"},
		{v: "3.1.0", why: "Provided version 3.1.0 is not supported by this server (supported: 2.0.0, 3.0.5)"},
		{v: "3.0.5+b1", why: "Provided version 3.0.5+b1 is not supported by this server (supported: 2.0.0, 3.0.5)"},
		{v: "3.0", why: "Invalid version value: 3.0 (see http://semver.org/ for details)"},
		{v: "3.0.0-be-ta", why: "Invalid version value: 3.0.0-be-ta (see http://semver.org/ for details)"},
		{v: "3.0.0-beta1", why: "There has been a few syntax breaking changes between 3.0.0-beta1 and 3.0.0 (mainly the syntax for options of CREATE KEYSPACE and CREATE TABLE). 3.0.0-beta1  is not supported; please upgrade to 3.0.0"},
	} {
		c := &conn{}
		err := c.setCQLVersion(tc.v)
		var why string
		if err != nil {
			why = err.Error()
		}
		if why != tc.why || c.cqlMajor != tc.major {
			t.Errorf("set_cql_version %q: major %d, error %q; want %d, %q", tc.v, c.cqlMajor, why, tc.major, tc.why)
		}
	}
}

func TestDeoverlap(t *testing.T) {
	cmp := func(a, b []byte) int { return compareBytes(a, b) }
	rev := func(a, b []byte) int { return compareBytes(b, a) }
	s := func(a, b string) span { return span{[]byte(a), []byte(b)} }
	for _, tc := range []struct {
		in, want []span
		reversed bool
	}{
		{in: []span{s("c", "e"), s("a", "b")}, want: []span{s("a", "b"), s("c", "e")}},
		{in: []span{s("a", "c"), s("b", "e")}, want: []span{s("a", "e")}},
		{in: []span{s("a", "e"), s("b", "c")}, want: []span{s("a", "e")}},
		{in: []span{s("b", ""), s("a", "c")}, want: []span{s("a", "")}},
		{in: []span{s("", "b"), s("c", "d"), s("a", "c")}, want: []span{s("", "d")}},
		{in: []span{s("b", "a"), s("e", "c")}, want: []span{s("e", "c"), s("b", "a")}, reversed: true},
		{in: []span{s("d", "b"), s("e", "c")}, want: []span{s("e", "b")}, reversed: true},
	} {
		c := cmp
		if tc.reversed {
			c = rev
		}
		got := deoverlap(append([]span(nil), tc.in...), c)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("deoverlap %q: %q, want %q", tc.in, got, tc.want)
		}
	}
}

func compareBytes(a, b []byte) int {
	switch {
	case string(a) < string(b):
		return -1
	case string(a) > string(b):
		return 1
	}
	return 0
}

func TestCQLRefusalNamesWhereToSendCQL(t *testing.T) {
	local := cqlRefusal(nil).Error()
	if !strings.HasPrefix(local, cqlServed) || !strings.HasSuffix(local, "a Cassandra node's native protocol port (9042 by default)") {
		t.Errorf("on LevelDB: %q", local)
	}
	cluster := cqlRefusal([]string{"db1:9042", "db2:9042"}).Error()
	if !strings.HasPrefix(cluster, cqlServed) || !strings.HasSuffix(cluster, "the Cassandra cluster that holds the data (db1:9042, db2:9042)") {
		t.Errorf("on Cassandra: %q", cluster)
	}
}

// Any statement is parsed or refused without a panic, and what parses
// names a table and only the clauses of the family.
func FuzzParseSchemaSelect(f *testing.F) {
	for _, q := range []string{
		"SELECT columnfamily_name, comparator, default_validator, key_validator FROM system.schema_columnfamilies WHERE keyspace_name='K'",
		`select * from "system"."schema_columns" where keyspace_name = 'a''b' and columnfamily_name = 'c' limit 5;`,
		"SELECT * FROM schema_keyspaces LIMIT -1", "'", `"`, "SELECT", "-", "- 1", "SELECT * FROM system.x WHERE",
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		sel, ok := parseSchemaSelect(q, "system")
		if ok && sel.table == "" {
			t.Fatalf("%q parsed with no table", q)
		}
	})
}
