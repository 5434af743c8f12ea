package e2e19

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine/cqlstore"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

// compositeName is a CompositeType name of a UTF8Type and a LongType
// component.
func compositeName(s string, n int64) []byte {
	out := binary.BigEndian.AppendUint16(nil, uint16(len(s)))
	out = append(append(out, s...), 0)
	out = binary.BigEndian.AppendUint16(out, 8)
	out = binary.BigEndian.AppendUint64(out, uint64(n))
	return append(out, 0)
}

// On the Cassandra store, a column family created through the 19.x API
// with a CompositeType or ReversedType comparator is the table DROP
// COMPACT STORAGE leaves of one: a CQL application reads what a Thrift
// client wrote, a column per component in the comparator's order, and a
// Thrift client reads what the CQL application wrote.
func TestCQLApplicationReadsCompositeFamilies(t *testing.T) {
	// RandomPartitioner: the CQL key is the row key's own type.
	conf := testenv.Fixture("storage-conf-0.6-default.xml")
	flags := testenv.CassandraStoreFlags(t, conf)
	var points, prefix string
	for i, f := range flags {
		switch f {
		case "-cassandra":
			points = flags[i+1]
		case "-cassandra-prefix":
			prefix = flags[i+1]
		}
	}
	n := testenv.NewNode(t, thriftdBin, conf, append([]string{"-api", "auto"}, flags...)...)
	n.Start()
	c := connect(t, n, "")
	events := cfDef("Comp", "Events", "CompositeType(UTF8Type, LongType(reversed=true))")
	events.KeyValidationClass, events.DefaultValidationClass = strp("UTF8Type"), strp("UTF8Type")
	latest := cfDef("Comp", "Latest", "org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.LongType)")
	latest.KeyValidationClass, latest.DefaultValidationClass = strp("UTF8Type"), strp("UTF8Type")
	_, err := c.SystemAddKeyspace(ctx, &cassandra19.KsDef{Name: "Comp", StrategyClass: "SimpleStrategy",
		StrategyOptions: map[string]string{"replication_factor": "1"}, CfDefs: []*cassandra19.CfDef{events, latest}})
	must(t, err)
	must(t, c.SetKeyspace(ctx, "Comp"))

	s, err := cqlstore.Cluster{Hosts: strings.Split(points, ","), Timeout: 20 * time.Second}.Connect()
	must(t, err)
	defer s.Close()
	table := func(cf string) string { return `"` + prefix + `Comp"."` + cf + `"` }

	// The Thrift client writes; CQL reads.
	put := func(cf, key string, name []byte, value string, stamp int64) {
		t.Helper()
		must(t, c.Insert(ctx, []byte(key), &cassandra19.ColumnParent{ColumnFamily: cf},
			&cassandra19.Column{Name: name, Value: []byte(value), Timestamp: &stamp}, cassandra19.ConsistencyLevel_ONE))
	}
	put("Events", "u1", compositeName("login", 5), "a", 10)
	put("Events", "u1", compositeName("signup", 1), "b", 11)
	put("Events", "u1", compositeName("login", 7), "c", 12)
	iter := s.Query(`SELECT column1, column2, value, writetime(value) FROM ` + table("Events") + ` WHERE key = 'u1'`).Iter()
	var c1, v string
	var c2, wt int64
	var got []string
	for iter.Scan(&c1, &c2, &v, &wt) {
		got = append(got, fmt.Sprintf("%s:%d=%s@%d", c1, c2, v, wt))
	}
	must(t, iter.Close())
	if g := strings.Join(got, " "); g != "login:7=c@12 login:5=a@10 signup:1=b@11" {
		t.Errorf("CQL reads the Thrift writes as %q", g)
	}
	for _, x := range []int64{1, 3, 2} {
		put("Latest", "u1", compositeName("", x)[5:13], fmt.Sprint(x), x)
	}
	got = nil
	iter = s.Query(`SELECT column1 FROM ` + table("Latest") + ` WHERE key = 'u1'`).Iter()
	for iter.Scan(&c2) {
		got = append(got, fmt.Sprint(c2))
	}
	must(t, iter.Close())
	if g := strings.Join(got, " "); g != "3 2 1" {
		t.Errorf("CQL reads Latest as %q, want the ReversedType order", g)
	}

	// CQL writes; the Thrift client reads.
	must(t, s.Query(`INSERT INTO `+table("Events")+` (key, column1, column2, value) VALUES ('u1', 'login', 9, 'd') USING TIMESTAMP 13`).Exec())
	must(t, s.Query(`INSERT INTO `+table("Latest")+` (key, column1, value) VALUES ('u1', 10, '10') USING TIMESTAMP 14`).Exec())
	slice := func(cf string, count int32) []*cassandra19.ColumnOrSuperColumn {
		t.Helper()
		cols, err := c.GetSlice(ctx, []byte("u1"), &cassandra19.ColumnParent{ColumnFamily: cf},
			&cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: count}}, cassandra19.ConsistencyLevel_ONE)
		must(t, err)
		return cols
	}
	cols := slice("Events", 2)
	if len(cols) != 2 || string(cols[0].Column.Name) != string(compositeName("login", 9)) || string(cols[0].Column.Value) != "d" ||
		cols[0].Column.GetTimestamp() != 13 || string(cols[1].Column.Name) != string(compositeName("login", 7)) {
		t.Errorf("the Thrift client reads Events as %v", cols)
	}
	cols = slice("Latest", 1)
	if len(cols) != 1 || string(cols[0].Column.Value) != "10" || cols[0].Column.GetTimestamp() != 14 {
		t.Errorf("the Thrift client reads Latest as %v", cols)
	}
	if n, err := c.GetCount(ctx, []byte("u1"), &cassandra19.ColumnParent{ColumnFamily: "Events"},
		&cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 100}}, cassandra19.ConsistencyLevel_ONE); err != nil || n != 4 {
		t.Errorf("get_count = %d, %v", n, err)
	}
}
