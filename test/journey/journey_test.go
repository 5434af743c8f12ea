// Package journey runs the way off Cassandra 3.11 end to end on one real
// node (test/cassandra/journey): a keyspace of Thrift-era tables on
// 3.11.19, its Thrift answers recorded, DROP COMPACT STORAGE on every
// table, thriftd in front of the node with -cassandra-adopt, the node
// upgraded to 4.1.10 and then 5.0.9 on the same directories while a
// Thrift client writes through thriftd. At each stage thriftd's answers
// are compared with 3.11's.
//
// It runs when THRIFTD_JOURNEY=1 (it stops, wipes and restarts the
// journey node, on ports of its own):
//
//	THRIFTD_JOURNEY=1 go test -race -v -timeout 20m ./test/journey
//
// With THRIFTD_JOURNEY_AUTH=1 as well, the node runs PasswordAuthenticator
// and CassandraAuthorizer at every version, and thriftd runs them too,
// with TLS on its Thrift port, logged in to the node as a role of its own;
// every stage then also checks logins, grants and refusals (auth_test.go).
package journey

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine/cqlstore"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

var thriftdBin string

func TestMain(m *testing.M) {
	if os.Getenv("THRIFTD_JOURNEY") == "" {
		fmt.Println("journey: skipped (set THRIFTD_JOURNEY=1 to run the 3.11 -> 4.1 -> 5.0 journey)")
		os.Exit(0)
	}
	testenv.Main(m, true, &thriftdBin)
}

const ks = "journey_app"

func script(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(testenv.RepoRoot(), "test", "cassandra", "journey"), args...)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("journey %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return strings.TrimSpace(string(out))
}

func long(v int64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, uint64(v))
	return b
}

// composite encodes a CompositeType name of a UTF8 and a LongType
// component.
func composite(s string, n int64) []byte {
	var b []byte
	b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
	b = append(b, s...)
	b = append(b, 0)
	b = binary.BigEndian.AppendUint16(b, 8)
	b = append(b, long(n)...)
	return append(b, 0)
}

func str(s string) *string { return &s }

// families are the Thrift-created column families of the keyspace.
func families() []*cassandra19.CfDef {
	cf := func(name, cmp, valid string) *cassandra19.CfDef {
		d := cassandra19.NewCfDef()
		d.Keyspace, d.Name, d.ComparatorType = ks, name, cmp
		d.DefaultValidationClass, d.KeyValidationClass = str(valid), str("UTF8Type")
		return d
	}
	std := cf("Standard1", "UTF8Type", "BytesType")
	longs := cf("Longs", "LongType", "UTF8Type")
	rev := cf("Reversed", "ReversedType(LongType)", "UTF8Type")
	comp := cf("Composite", "CompositeType(UTF8Type,LongType)", "UTF8Type")
	static := cf("Users", "UTF8Type", "UTF8Type")
	static.ColumnMetadata = []*cassandra19.ColumnDef{
		{Name: []byte("email"), ValidationClass: "UTF8Type"},
		{Name: []byte("age"), ValidationClass: "LongType"},
	}
	super := cf("Super1", "UTF8Type", "UTF8Type")
	super.ColumnType = "Super"
	super.SubcomparatorType = str("LongType")
	counter := cf("Counts", "UTF8Type", "CounterColumnType")
	// The family the writer writes to during the upgrades, apart from the
	// recorded reads.
	writes := cf("Writes", "UTF8Type", "BytesType")
	return []*cassandra19.CfDef{std, longs, rev, comp, static, super, counter, writes}
}

// cqlTables are compact tables created with CQL on 3.11.
var cqlTables = []string{
	`CREATE TABLE ` + ks + `.events (k text, ts bigint, v bigint, PRIMARY KEY (k, ts)) WITH COMPACT STORAGE`,
	`CREATE TABLE ` + ks + `.tags (k text, tag text, PRIMARY KEY (k, tag)) WITH COMPACT STORAGE`,
}

var tables = []string{"Standard1", "Longs", "Reversed", "Composite", "Users", "Super1", "Counts", "events", "tags"}

const ts0 = 1_700_000_000_000_000

var keys = []string{"alice", "bob", "carol", "dave"}

// load writes the rows through Thrift and CQL with fixed timestamps.
func load(t *testing.T, c *testenv.Client19, s *gocql.Session) {
	ctx := context.Background()
	col := func(name, value []byte, ts int64) *cassandra19.Mutation {
		return &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{
			Column: &cassandra19.Column{Name: name, Value: value, Timestamp: &ts}}}
	}
	m := map[string]map[string][]*cassandra19.Mutation{}
	for i, k := range keys {
		ts := int64(ts0 + i)
		rows := map[string][]*cassandra19.Mutation{}
		for j := 0; j < 5; j++ {
			rows["Standard1"] = append(rows["Standard1"], col([]byte(fmt.Sprintf("c%d", j)), []byte(fmt.Sprintf("%s-%d", k, j)), ts))
			rows["Longs"] = append(rows["Longs"], col(long(int64(j*10-20)), []byte(fmt.Sprintf("v%d", j)), ts))
			rows["Reversed"] = append(rows["Reversed"], col(long(int64(j*7)), []byte(fmt.Sprintf("r%d", j)), ts))
			rows["Composite"] = append(rows["Composite"], col(composite(fmt.Sprintf("p%d", j%2), int64(j)), []byte(fmt.Sprintf("x%d", j)), ts))
		}
		rows["Users"] = []*cassandra19.Mutation{
			col([]byte("email"), []byte(k+"@example.com"), ts),
			col([]byte("age"), long(int64(20+i)), ts),
			col([]byte("nickname"), []byte("nick-"+k), ts),
		}
		for sc := 0; sc < 3; sc++ {
			var sub []*cassandra19.Column
			for j := 0; j < 3; j++ {
				sub = append(sub, &cassandra19.Column{Name: long(int64(j)), Value: []byte(fmt.Sprintf("%s/%d/%d", k, sc, j)), Timestamp: &ts})
			}
			rows["Super1"] = append(rows["Super1"], &cassandra19.Mutation{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{
				SuperColumn: &cassandra19.SuperColumn{Name: []byte(fmt.Sprintf("sc%d", sc)), Columns: sub}}})
		}
		m[k] = rows
	}
	if err := c.BatchMutate(ctx, m, cassandra19.ConsistencyLevel_ONE); err != nil {
		t.Fatalf("batch_mutate on 3.11: %v", err)
	}
	for i, k := range keys {
		for j := 0; j < 3; j++ {
			if err := c.Add(ctx, []byte(k), &cassandra19.ColumnParent{ColumnFamily: "Counts"},
				&cassandra19.CounterColumn{Name: []byte(fmt.Sprintf("n%d", j)), Value: int64(i*10 + j)}, cassandra19.ConsistencyLevel_ONE); err != nil {
				t.Fatalf("add on 3.11: %v", err)
			}
		}
		for j := 0; j < 4; j++ {
			if err := s.Query(`INSERT INTO `+ks+`.events (k, ts, v) VALUES (?, ?, ?) USING TIMESTAMP ?`, k, int64(1000+j), int64(i*100+j), int64(ts0+i)).Exec(); err != nil {
				t.Fatal(err)
			}
			if err := s.Query(`INSERT INTO `+ks+`.tags (k, tag) VALUES (?, ?) USING TIMESTAMP ?`, k, fmt.Sprintf("t%d", j), int64(ts0+i)).Exec(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// query is one recorded Thrift call.
type query struct {
	label string
	call  func(ctx context.Context, c *testenv.Client19) (any, error)
}

func slice(start, finish []byte, reversed bool, count int32) *cassandra19.SlicePredicate {
	return &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: start, Finish: finish, Reversed: reversed, Count: count}}
}

// queries is the fixed set of reads compared at each stage.
func queries() []query {
	var qs []query
	one := cassandra19.ConsistencyLevel_ONE
	add := func(label string, f func(ctx context.Context, c *testenv.Client19) (any, error)) {
		qs = append(qs, query{label, f})
	}
	empty := []byte{}
	for _, cf := range tables {
		cf := cf
		parent := &cassandra19.ColumnParent{ColumnFamily: cf}
		for _, k := range keys[:2] {
			k := k
			add(fmt.Sprintf("get_slice %s %s", cf, k), func(ctx context.Context, c *testenv.Client19) (any, error) {
				return c.GetSlice(ctx, []byte(k), parent, slice(empty, empty, false, 100), one)
			})
			add(fmt.Sprintf("get_slice reversed 2 %s %s", cf, k), func(ctx context.Context, c *testenv.Client19) (any, error) {
				return c.GetSlice(ctx, []byte(k), parent, slice(empty, empty, true, 2), one)
			})
			add(fmt.Sprintf("get_count %s %s", cf, k), func(ctx context.Context, c *testenv.Client19) (any, error) {
				return c.GetCount(ctx, []byte(k), parent, slice(empty, empty, false, 100), one)
			})
		}
		add(fmt.Sprintf("multiget_slice %s", cf), func(ctx context.Context, c *testenv.Client19) (any, error) {
			return c.MultigetSlice(ctx, [][]byte{[]byte("alice"), []byte("carol"), []byte("nobody")}, parent, slice(empty, empty, false, 3), one)
		})
		add(fmt.Sprintf("get_range_slices %s", cf), func(ctx context.Context, c *testenv.Client19) (any, error) {
			return c.GetRangeSlices(ctx, parent, slice(empty, empty, false, 2),
				&cassandra19.KeyRange{StartKey: empty, EndKey: empty, Count: 100}, one)
		})
	}
	// Bounded slices and single columns of the typed families.
	add("get_slice Longs -10..10", func(ctx context.Context, c *testenv.Client19) (any, error) {
		return c.GetSlice(ctx, []byte("alice"), &cassandra19.ColumnParent{ColumnFamily: "Longs"}, slice(long(-10), long(10), false, 100), one)
	})
	add("get_slice Reversed 21..7", func(ctx context.Context, c *testenv.Client19) (any, error) {
		return c.GetSlice(ctx, []byte("alice"), &cassandra19.ColumnParent{ColumnFamily: "Reversed"}, slice(long(21), long(7), false, 100), one)
	})
	add("get_count Reversed inverted", func(ctx context.Context, c *testenv.Client19) (any, error) {
		return c.GetCount(ctx, []byte("alice"), &cassandra19.ColumnParent{ColumnFamily: "Reversed"}, slice(long(7), long(21), false, 100), one)
	})
	add("get Users email", func(ctx context.Context, c *testenv.Client19) (any, error) {
		return c.Get(ctx, []byte("bob"), &cassandra19.ColumnPath{ColumnFamily: "Users", Column: []byte("email")}, one)
	})
	add("get Users nickname", func(ctx context.Context, c *testenv.Client19) (any, error) {
		return c.Get(ctx, []byte("bob"), &cassandra19.ColumnPath{ColumnFamily: "Users", Column: []byte("nickname")}, one)
	})
	add("get Standard1 missing", func(ctx context.Context, c *testenv.Client19) (any, error) {
		return c.Get(ctx, []byte("bob"), &cassandra19.ColumnPath{ColumnFamily: "Standard1", Column: []byte("nope")}, one)
	})
	add("get_slice Super1 sc1 subcolumns", func(ctx context.Context, c *testenv.Client19) (any, error) {
		return c.GetSlice(ctx, []byte("alice"), &cassandra19.ColumnParent{ColumnFamily: "Super1", SuperColumn: []byte("sc1")}, slice(empty, empty, false, 100), one)
	})
	add("get Super1 sc2 subcolumn 1", func(ctx context.Context, c *testenv.Client19) (any, error) {
		return c.Get(ctx, []byte("bob"), &cassandra19.ColumnPath{ColumnFamily: "Super1", SuperColumn: []byte("sc2"), Column: long(1)}, one)
	})
	add("get Super1 sc0", func(ctx context.Context, c *testenv.Client19) (any, error) {
		return c.Get(ctx, []byte("bob"), &cassandra19.ColumnPath{ColumnFamily: "Super1", SuperColumn: []byte("sc0")}, one)
	})
	add("get events 1002", func(ctx context.Context, c *testenv.Client19) (any, error) {
		return c.Get(ctx, []byte("carol"), &cassandra19.ColumnPath{ColumnFamily: "events", Column: long(1002)}, one)
	})
	add("get Counts n1", func(ctx context.Context, c *testenv.Client19) (any, error) {
		return c.Get(ctx, []byte("carol"), &cassandra19.ColumnPath{ColumnFamily: "Counts", Column: []byte("n1")}, one)
	})
	add("describe_keyspace families", func(ctx context.Context, c *testenv.Client19) (any, error) {
		d, err := c.DescribeKeyspace(ctx, ks)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, cf := range d.CfDefs {
			out = append(out, fmt.Sprintf("%s %s %s", cf.Name, cf.GetColumnType(), cf.GetComparatorType()))
		}
		sort.Strings(out)
		return out, nil
	})
	return qs
}

// answer renders a reply or an exception for comparison.
func answer(v any, err error) string {
	if err != nil {
		if _, ok := err.(interface{ TypeId() int32 }); ok {
			return "transport: " + err.Error()
		}
		b, _ := json.Marshal(err)
		return fmt.Sprintf("%T %s", err, b)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func record(t *testing.T, addr string, a access) []string {
	t.Helper()
	var out []string
	var c *testenv.Client19
	dial := func() {
		var err error
		if c, err = a.dialKeyspace(addr, 30*time.Second); err != nil {
			t.Fatalf("dial %s: %v", addr, err)
		}
	}
	dial()
	for _, q := range queries() {
		v, err := q.call(context.Background(), c)
		out = append(out, answer(v, err))
		if err != nil && !isThriftException(err) {
			// The server dropped the connection (3.11 does on some reads
			// after the drop): dial again for the next query.
			c.Close()
			dial()
		}
	}
	c.Close()
	return out
}

func isThriftException(err error) bool {
	switch err.(type) {
	case *cassandra19.InvalidRequestException, *cassandra19.NotFoundException, *cassandra19.UnavailableException,
		*cassandra19.TimedOutException, *cassandra19.SchemaDisagreementException:
		return true
	}
	return false
}

// documented are the differences from 3.11 thriftd answers on purpose,
// by query label prefix, with why (docs/migration.md). A difference with
// a normalize function is documented only when the two answers, both
// normalized, are equal: it differs in that and nothing else.
var documented = map[string]struct {
	why       string
	normalize func(string) string
}{
	"get_slice reversed 2 Users":  {why: "3.11 answers a reversed slice of a static compact family out of order (a 3.11 bug); thriftd answers 2.1's order"},
	"get_count Reversed inverted": {why: "3.11 fails an assertion and drops the connection; thriftd refuses the inverted range as 1.2.19 does (2.1 answers 0)"},
	// A super family's subcolumns are entries of a CQL map, whose write
	// times CQL cannot read (docs/cassandra.md, serving in place).
	"get_slice Super1":            {superStamps, noStamps},
	"get_slice reversed 2 Super1": {superStamps, noStamps},
	"multiget_slice Super1":       {superStamps, noStamps},
	"get_range_slices Super1":     {superStamps, noStamps},
	"get Super1":                  {superStamps, noStamps},
}

const superStamps = "a super family's subcolumn timestamps are not readable through CQL; thriftd answers 0"

var stamp = regexp.MustCompile(`"timestamp":-?[0-9]+`)

// noStamps is an answer without its columns' timestamps.
func noStamps(answer string) string { return stamp.ReplaceAllString(answer, `"timestamp":_`) }

// documentedWhy is why the answers to query label differ, or "" when the
// difference is not documented.
func documentedWhy(label, want, got string) string {
	for p, d := range documented {
		if strings.HasPrefix(label, p) && (d.normalize == nil || d.normalize(want) == d.normalize(got)) {
			return d.why
		}
	}
	return ""
}

func compare(t *testing.T, stage string, want, got []string) (equal, doc, other int) {
	qs := queries()
	for i := range want {
		switch {
		case want[i] == got[i]:
			equal++
		case documentedWhy(qs[i].label, want[i], got[i]) != "":
			doc++
			t.Logf("%s: %s differs as documented (%s): now %s", stage, qs[i].label, documentedWhy(qs[i].label, want[i], got[i]), clip(got[i]))
		default:
			other++
			t.Logf("%s: %s differs:\n  3.11:    %s\n  now:     %s", stage, qs[i].label, clip(want[i]), clip(got[i]))
		}
	}
	t.Logf("journey: %s: %d queries, %d equal to 3.11's, %d documented differences, %d other", stage, len(want), equal, doc, other)
	return
}

// problems are the WARN and ERROR lines of a JSON log, the last 50.
func problems(log string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, `"level":"WARN"`) || strings.Contains(l, `"level":"ERROR"`) {
			out = append(out, l)
		}
	}
	if len(out) > 50 {
		out = out[len(out)-50:]
	}
	return strings.Join(out, "\n")
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return s
}

// writer writes rows through thriftd until stopped, reconnecting as
// needed, and keeps the keys whose write was acknowledged.
type writer struct {
	addr            string
	access          access
	acked           sync.Map
	nAcked, nFailed atomic.Int64
	stop, done      chan struct{}
}

func (w *writer) run() {
	defer close(w.done)
	var c *testenv.Client19
	for i := 0; ; i++ {
		select {
		case <-w.stop:
			if c != nil {
				c.Close()
			}
			return
		default:
		}
		if c == nil {
			var err error
			c, err = w.access.dialKeyspace(w.addr, 15*time.Second)
			if err != nil {
				w.nFailed.Add(1)
				time.Sleep(200 * time.Millisecond)
				continue
			}
		}
		key := fmt.Sprintf("w%06d", i)
		ts := time.Now().UnixMicro()
		err := c.Insert(context.Background(), []byte(key), &cassandra19.ColumnParent{ColumnFamily: "Writes"},
			&cassandra19.Column{Name: []byte("seq"), Value: []byte(key), Timestamp: &ts}, cassandra19.ConsistencyLevel_ONE)
		if err != nil {
			w.nFailed.Add(1)
			if !isThriftException(err) {
				c.Close()
				c = nil
			}
			time.Sleep(100 * time.Millisecond)
			continue
		}
		w.acked.Store(key, true)
		w.nAcked.Add(1)
		time.Sleep(20 * time.Millisecond)
	}
}

// superWrite writes a subcolumn with a TTL into the super family through
// thriftd, reads it back through thriftd and through CQL (an entry of the
// map column ""), deletes its super column and then the row, and checks
// both are gone: the statements thriftd writes a super family with work on
// the node's release of the moment.
func superWrite(t *testing.T, addr string, a access, cl cqlstore.Cluster, stage string) {
	t.Helper()
	ctx := context.Background()
	c, err := a.dialKeyspace(addr, 30*time.Second)
	if err != nil {
		t.Fatalf("%s: dial: %v", stage, err)
	}
	defer c.Close()
	one := cassandra19.ConsistencyLevel_ONE
	key, sc := []byte("super-writes"), []byte(stage)
	parent := &cassandra19.ColumnParent{ColumnFamily: "Super1", SuperColumn: sc}
	ts, ttl := time.Now().UnixMicro(), int32(3600)
	if err := c.Insert(ctx, key, parent, &cassandra19.Column{Name: long(42), Value: []byte(stage), Timestamp: &ts, TTL: &ttl}, one); err != nil {
		t.Errorf("%s: insert of a subcolumn: %v", stage, err)
		return
	}
	all := slice([]byte{}, []byte{}, false, 100)
	got, err := c.GetSlice(ctx, key, parent, all, one)
	if err != nil || len(got) != 1 || string(got[0].Column.Value) != stage {
		t.Errorf("%s: the subcolumn written through thriftd reads back as %v, %v", stage, answer(got, nil), err)
	}
	s, err := cl.Connect()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	iter := s.Query(`SELECT * FROM `+ks+`."Super1" WHERE key = ? AND column1 = ?`, string(key), stage).Iter()
	cqlRow := map[string]any{}
	found := iter.MapScan(cqlRow)
	if err := iter.Close(); err != nil || !found || fmt.Sprint(cqlRow[""]) != fmt.Sprintf("map[42:%s]", stage) {
		t.Errorf("%s: CQL reads the subcolumn as %v (found %v, %v)", stage, cqlRow, found, err)
	}
	ts++
	if err := c.Remove(ctx, key, &cassandra19.ColumnPath{ColumnFamily: "Super1", SuperColumn: sc}, ts, one); err != nil {
		t.Errorf("%s: remove of the super column: %v", stage, err)
	}
	if got, err := c.GetSlice(ctx, key, parent, all, one); err != nil || len(got) != 0 {
		t.Errorf("%s: after the super column's removal: %v, %v", stage, answer(got, nil), err)
	}
	ts++
	if err := c.Remove(ctx, key, &cassandra19.ColumnPath{ColumnFamily: "Super1"}, ts, one); err != nil {
		t.Errorf("%s: remove of the row: %v", stage, err)
	}
	t.Logf("journey: %s: a subcolumn written, read back through thriftd and CQL, its super column and row removed", stage)
}

func TestJourney(t *testing.T) {
	secured := os.Getenv("THRIFTD_JOURNEY_AUTH") != ""
	start := time.Now()
	script(t, "wipe")
	t.Cleanup(func() {
		if os.Getenv("THRIFTD_JOURNEY_KEEP") == "" {
			script(t, "wipe")
		}
	})
	cql := script(t, "start", "3.11")
	thrift311 := script(t, "address")
	t.Logf("journey: 3.11.19 serving Thrift at %s, CQL at %s (%s)", thrift311, cql, time.Since(start).Round(time.Second))

	cl := cqlstore.Cluster{Hosts: []string{cql}, Timeout: 30 * time.Second}
	// on311 is how the harness reaches 3.11's own Thrift server, onThriftd
	// thriftd's.
	var on311, onThriftd access
	if secured {
		cl.Username, cl.Password = "cassandra", "cassandra"
		on311 = access{user: "cassandra", password: "cassandra"}
	}
	s := connect(t, cl)
	c, err := on311.dial(thrift311, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	kd := cassandra19.NewKsDef()
	kd.Name, kd.StrategyClass = ks, "org.apache.cassandra.locator.SimpleStrategy"
	kd.StrategyOptions, kd.CfDefs = map[string]string{"replication_factor": "1"}, families()
	if _, err := c.SystemAddKeyspace(ctx, kd); err != nil {
		t.Fatalf("system_add_keyspace on 3.11: %v", err)
	}
	for _, stmt := range cqlTables {
		if err := s.Query(stmt).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	if err := c.SetKeyspace(ctx, ks); err != nil {
		t.Fatal(err)
	}
	load(t, c, s)
	c.Close()

	var sec *security
	if secured {
		sec = newSecurity(t, s)
		onThriftd = sec.app
	}

	want := record(t, thrift311, on311)
	t.Logf("journey: recorded 3.11's answers to %d queries", len(want))

	for _, tb := range append(tables, "Writes") {
		if err := s.Query(`ALTER TABLE ` + ks + `."` + tb + `" DROP COMPACT STORAGE`).Exec(); err != nil {
			t.Fatalf("DROP COMPACT STORAGE of %s: %v", tb, err)
		}
	}
	s.Close()
	after := record(t, thrift311, on311)
	same := 0
	for i := range want {
		if want[i] == after[i] {
			same++
		}
	}
	t.Logf("journey: after DROP COMPACT STORAGE, 3.11's own Thrift server answers %d of %d queries as before", same, len(want))

	// thriftd in front of the 3.11 node.
	conf := filepath.Join(t.TempDir(), "storage-conf.xml")
	base, err := os.ReadFile(testenv.Fixture("storage-conf-0.6-default.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(conf, base, 0o644); err != nil {
		t.Fatal(err)
	}
	inspected, err := cqlstore.Inspect(ctx, cl, ks)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range inspected {
		t.Logf("journey: table %s: served %v, shape %q, reason %q", tb.Name, tb.Servable(), tb.Shape, tb.Reason)
	}
	args := []string{"-config", conf, "-listen", "127.0.0.1:0", "-log-format", "json",
		"-log-level", "info", "-admin", "127.0.0.1:0", "-api", "19.x",
		"-cassandra", cql, "-cassandra-prefix", "journey_thriftd_", "-cassandra-adopt", ks, "-cassandra-timeout", "5s"}
	if secured {
		args = append(args, sec.thriftdArgs(t)...)
	}
	// Registered before the node, so that it runs once thriftd has
	// stopped and its log has been read to the end.
	var n *testenv.Node
	t.Cleanup(func() {
		if t.Failed() && n != nil {
			t.Logf("thriftd's warnings and errors:\n%s", problems(n.Logs()))
		}
	})
	n = testenv.NewNodeArgs(t, thriftdBin, args...)
	n.Start()
	t.Logf("journey: thriftd serving at %s in front of 3.11.19 (secured: %v)", n.Addr, secured)

	type figure struct {
		stage             string
		equal, doc, other int
	}
	var figures []figure
	stage := func(name string) {
		e, d, o := compare(t, name, want, record(t, n.Addr, onThriftd))
		figures = append(figures, figure{name, e, d, o})
		superWrite(t, n.Addr, onThriftd, cl, name)
		if secured {
			sec.check(t, name, n.Addr, cl)
		}
	}
	stage("thriftd on 3.11.19")

	w := &writer{addr: n.Addr, access: onThriftd, stop: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	time.Sleep(3 * time.Second)

	for _, v := range []string{"4.1", "5.0"} {
		t0 := time.Now()
		script(t, "start", v)
		t.Logf("journey: node drained, stopped and started as %s in %s; writes acknowledged so far %d, refused %d",
			v, time.Since(t0).Round(time.Second), w.nAcked.Load(), w.nFailed.Load())
		if v == "4.1" {
			script(t, "nodetool", "upgradesstables")
		}
		// Let thriftd's connections come back.
		deadline := time.Now().Add(60 * time.Second)
		for before := w.nAcked.Load(); w.nAcked.Load() < before+10 && time.Now().Before(deadline); {
			time.Sleep(200 * time.Millisecond)
		}
		stage("thriftd on " + map[string]string{"4.1": "4.1.10", "5.0": "5.0.9"}[v])
	}
	close(w.stop)
	<-w.done

	// Every acknowledged write is read back.
	rc, err := onThriftd.dialKeyspace(n.Addr, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	missing := 0
	w.acked.Range(func(k, _ any) bool {
		_, err := rc.Get(ctx, []byte(k.(string)), &cassandra19.ColumnPath{ColumnFamily: "Writes", Column: []byte("seq")}, cassandra19.ConsistencyLevel_ONE)
		if err != nil {
			missing++
			if missing < 5 {
				t.Errorf("acknowledged write %s not read back: %v", k, err)
			}
		}
		return true
	})
	for _, f := range figures {
		if f.other > 0 {
			t.Errorf("journey: %s: %d answers differ from 3.11's without a documented reason", f.stage, f.other)
		}
	}
	if w.nAcked.Load() == 0 {
		t.Error("journey: no write was acknowledged through thriftd")
	}
	t.Logf("journey: %d writes acknowledged through thriftd across the upgrades (%d refused while the node restarted), %d read back, %d missing",
		w.nAcked.Load(), w.nFailed.Load(), w.nAcked.Load()-int64(missing), missing)
	for _, f := range figures {
		t.Logf("journey: %-20s %d equal, %d documented, %d other", f.stage, f.equal, f.doc, f.other)
	}
	if secured {
		sec.report(t)
	}
	t.Logf("journey: %s in all", time.Since(start).Round(time.Second))
}
