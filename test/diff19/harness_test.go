// Package diff19 runs the same 19.x call sequences against the real
// Cassandra 1.2.19 (test/cassandra/reference) and against the real thriftd
// binary, and compares the replies field by field and the exceptions by
// class and message. See docs/api19.md, "Differences from Cassandra
// 1.2.19", for the differences that remain on purpose; every one of them is
// listed in known below with its reason, and a listed difference that no
// longer differs fails the test too, so that the list stays true.
package diff19

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

var thriftdBin string

func TestMain(m *testing.M) {
	testenv.Main(m, true, &thriftdBin)
}

var ctx = context.Background()

// referenceVersion is the real Cassandra the sequences run against: 1.2
// (1.2.19), the reference of the 19.x API, by default, or the release
// $THRIFTD_DIFF19_REFERENCE names (2.1 or 3.11) for a survey: the same
// calls against another release, whose differences from thriftd are
// reported (logged and counted) but fail nothing, since the expectations
// are 1.2.19's.
func referenceVersion() string {
	if v := os.Getenv("THRIFTD_DIFF19_REFERENCE"); v != "" {
		return v
	}
	return "1.2"
}

// survey reports whether the sequences run against a release other than
// 1.2.19.
func survey() bool { return referenceVersion() != "1.2" }

// releases are the reference nodes' releases, by referenceVersion.
var releases = map[string]string{"1.2": "1.2.19", "2.1": "2.1.21", "3.11": "3.11.19"}

// excuse is a difference the test expects: on purpose (docs/api19.md,
// "Differences from Cassandra 1.2.19", says why), or pending, awaiting
// work in another part of thriftd. An excuse on purpose that no call
// matched fails the test, so that the list stays true; a pending one that
// no call matched is reported, so that it is removed once fixed.
type excuse struct {
	name    string
	pending bool
	match   func(label string, ref, thr outcome) bool
	// levelDBOnly: on the Cassandra store the difference is hidden by
	// another (one of the pending ones), so it need not show there.
	levelDBOnly bool
	// cassandraOnly: the difference is the Cassandra store's.
	cassandraOnly bool
	// schemaChange: the difference shows only where thriftd can change
	// its schema at run time.
	schemaChange bool
}

func byLabel(labels ...string) func(string, outcome, outcome) bool {
	return func(label string, _, _ outcome) bool {
		for _, l := range labels {
			if label == l {
				return true
			}
		}
		return false
	}
}

// refAndThr matches a difference whose renderings contain ref and thr.
func refAndThr(ref, thr string) func(string, outcome, outcome) bool {
	return func(_ string, r, t outcome) bool {
		return strings.Contains(r.String(), ref) && strings.Contains(t.String(), thr)
	}
}

// declaredExcuse covers the system_* calls that change the schema, when
// thriftd's store cannot.
var declaredExcuse = excuse{pending: true, name: "the store cannot change its schema at run time (system_* refused)"}

// afterSchemaChange are the calls that depend on an earlier system_*
// call's success.
var afterSchemaChange = map[string]bool{}

func init() {
	for _, l := range []string{
		"insert into an added family",
		"get_slice of an added family",
		"system_update_column_family",
		"describe_keyspace after changes",
		"system_drop_column_family",
		"get_slice of a dropped family",
		"describe_keyspace of an added keyspace",
		"system_update_keyspace",
		"describe_keyspace of an updated keyspace",
		"system_drop_keyspace",
		"describe_keyspace with every property",
		"system_update_column_family adding a column definition",
		"describe_keyspace after an update",
		"describe_keyspace of a NetworkTopologyStrategy keyspace",
		"system_drop_keyspace with NetworkTopologyStrategy",
		"insert into a counter family",
		"batch_mutate of a column into a counter family",
		"remove from a counter family",
		"get_slice of a counter family",
		"add to a counter family",
	} {
		afterSchemaChange[l] = true
	}
}

// onCassandra is true when thriftd runs on the Cassandra store.
func onCassandra() bool { return testenv.Backend() == testenv.CassandraBackend }

var excuses = []excuse{
	{name: "describe_version: thriftd serves API 19.39.0, 1.2.19 answered 19.36.2",
		match: byLabel("describe_version")},
	{name: "1.2.19 fails with an internal error (the connection drops) on a malformed token, an unknown keyspace in describe_ring or an unknown column family in describe_splits; thriftd refuses them with InvalidRequestException",
		match: func(_ string, r, t outcome) bool {
			return r.exc == "transport error" && strings.HasPrefix(t.exc, "InvalidRequestException(")
		}},
	{name: "an unknown consistency level: 1.2.19's Thrift library reads it as a missing required field (TApplicationException PROTOCOL_ERROR, with a dump of the request); thriftd reads it as ONE",
		match: byLabel("get at an unknown consistency level")},
	{name: "a TTL reaching past 2038: 1.2.19 computes the expiry in a signed 32-bit count of seconds, which overflows, and the column is gone at once; thriftd keeps it for its TTL",
		levelDBOnly: true,
		match: func(label string, r, t outcome) bool {
			return strings.Contains(t.String(), "TTL:630720000") && !strings.Contains(r.String(), "TTL:630720000") ||
				label == "get_count after expiry"
		}},
	{name: "describe_splits is an estimate: 1.2.19 cut a range at its sstables' index samples (none while the rows are only in memtables), thriftd as 2.1.21 cut one sstable of the family's rows (TestSplitsAgainst21); keys_per_split 0 failed with an internal error on 1.2.19, thriftd reads it as 1",
		match: byLabel("describe_splits_ex of a part of the ring", "describe_splits with keys_per_split 0")},
	{name: "a range deletion (a Deletion by SliceRange): 1.2.19 refused it (Deletion does not yet support SliceRange predicates.), thriftd serves it as 2.1.21 does (here it refuses the next mutation of the batch)",
		match: byLabel("batch_mutate with a slice range deletion", "atomic_batch_mutate with a slice range deletion",
			"batch_mutate with a super column deletion by slice range", "batch_mutate deletion of counters by a slice range")},
	{name: "a call before set_keyspace: 1.2.19 said no keyspace has been specified, thriftd answers in 2.0-2.1.21's words",
		match: refAndThr("InvalidRequestException(no keyspace has been specified)", "InvalidRequestException(No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename)")},
	{name: "get_paged_slice with a row filter: 1.2.19 passed the filter to its index search (and timed out without an indexed column), thriftd refuses it as 2.0 and 2.1.21 do (Cross-row paging is not supported along with index clauses)",
		match: func(label string, _, t outcome) bool {
			return strings.HasPrefix(label, "get_paged_slice with a row filter") && strings.Contains(t.String(), "Cross-row paging is not supported along with index clauses")
		}},
	{name: "2.0's and 2.1's CfDef properties (here memtable_flush_period_in_ms) are kept and described back, as 2.1.21 describes them; 1.2.19 dropped them",
		match: func(label string, r, t outcome) bool {
			return strings.HasPrefix(label, "describe_keyspace") &&
				strings.Contains(t.String(), "MemtableFlushPeriodInMs:60000") && !strings.Contains(r.String(), "MemtableFlushPeriodInMs:60000")
		}},
}

// outcome is one side's answer to a call: a value, or an exception
// rendered as its class and message.
type outcome struct {
	val any
	exc string
}

func (o outcome) String() string {
	if o.exc != "" {
		return o.exc
	}
	return show(o.val)
}

// side is one server under comparison and its current connection.
type side struct {
	name     string
	addr     string
	c        *testenv.Client19
	keyspace string // set_keyspace to repeat on a new connection
}

func (s *side) dial(t *testing.T) {
	t.Helper()
	if s.c != nil {
		s.c.Close()
	}
	c, err := testenv.Dial19(s.addr, true, 3*time.Minute)
	if err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	s.c = c
	if s.keyspace != "" {
		if err := c.SetKeyspace(ctx, s.keyspace); err != nil {
			t.Fatalf("%s: set_keyspace %s on a new connection: %v", s.name, s.keyspace, err)
		}
	}
}

// diff runs calls on both sides and counts them.
type diff struct {
	t        *testing.T
	ref, thr *side
	ks       string

	mu          sync.Mutex
	calls       int
	differences int
	differing   []string       // labels of the unexpected differences
	excused     map[string]int // by excuse name
	// declared: thriftd's store cannot change its schema at run time, and
	// the test keyspace is declared in its storage-conf.xml.
	declared bool
}

// render turns an error into "Class(message)"; a transport error, after
// which the connection is no use, into "transport error" (and the side
// reconnects).
func (d *diff) render(s *side, err error) string {
	var (
		ire *cassandra19.InvalidRequestException
		nfe *cassandra19.NotFoundException
		ue  *cassandra19.UnavailableException
		te  *cassandra19.TimedOutException
		ae  *cassandra19.AuthenticationException
		aze *cassandra19.AuthorizationException
		sde *cassandra19.SchemaDisagreementException
		tae thrift.TApplicationException
	)
	switch {
	case errors.As(err, &ire):
		return "InvalidRequestException(" + ire.Why + ")"
	case errors.As(err, &nfe):
		return "NotFoundException()"
	case errors.As(err, &ue):
		return "UnavailableException()"
	case errors.As(err, &te):
		return "TimedOutException()"
	case errors.As(err, &ae):
		return "AuthenticationException(" + ae.Why + ")"
	case errors.As(err, &aze):
		return "AuthorizationException(" + aze.Why + ")"
	case errors.As(err, &sde):
		return "SchemaDisagreementException()"
	case errors.As(err, &tae):
		s.dial(d.t)
		return fmt.Sprintf("TApplicationException(%d, %s)", tae.TypeId(), tae.Error())
	}
	d.t.Logf("%s: transport error %v; reconnecting", s.name, err)
	s.dial(d.t)
	return "transport error"
}

// call runs f on both sides and compares the outcomes after norm (nil:
// none). label names the call in reports and in known.
func (d *diff) call(label string, norm func(any) any, f func(c *cassandra19.CassandraClient) (any, error)) (ref, thr outcome) {
	d.t.Helper()
	run := func(s *side) outcome {
		v, err := f(s.c.CassandraClient)
		if err != nil {
			return outcome{exc: d.render(s, err)}
		}
		if norm != nil {
			v = norm(v)
		}
		return outcome{val: v}
	}
	// The closure draws the same timestamps (ts) on both sides.
	start := clock
	ref = run(d.ref)
	refEnd := clock
	clock = start
	thr = run(d.thr)
	clock = max(clock, refEnd)
	same := ref.exc == thr.exc && (ref.exc != "" || reflect.DeepEqual(ref.val, thr.val))
	var why *excuse
	if !same && d.declared && (strings.Contains(thr.exc, noSchemaChanges) || afterSchemaChange[label]) {
		why = &declaredExcuse
	}
	if !same && why == nil {
		for i := range excuses {
			if excuses[i].match(label, ref, thr) {
				why = &excuses[i]
				break
			}
		}
	}
	d.mu.Lock()
	d.calls++
	switch {
	case why != nil:
		d.excused[why.name]++
	case !same:
		d.differences++
		d.differing = append(d.differing, label)
	}
	d.mu.Unlock()
	if !same {
		if why != nil {
			d.t.Logf("expected difference %s (%s):\n  %s:  %s\n  thriftd: %s", label, why.name, d.ref.name, clip(ref.String()), clip(thr.String()))
		} else {
			report := d.t.Errorf
			if survey() {
				report = d.t.Logf
			}
			report("%s differs:\n  %s:  %s\n  thriftd: %s", label, d.ref.name, clip(ref.String()), clip(thr.String()))
			if ref.exc == "" && thr.exc == "" {
				report("  first difference at %s", firstDiff(reflect.ValueOf(ref.val), reflect.ValueOf(thr.val), "reply"))
			}
		}
	}
	return ref, thr
}

// void adapts a call without a result.
func void(err error) (any, error) { return nil, err }

// setKeyspace switches both sides' connections to ks and remembers it.
func (d *diff) setKeyspace(ks string) {
	d.t.Helper()
	d.call("set_keyspace "+ks, nil, func(c *cassandra19.CassandraClient) (any, error) { return void(c.SetKeyspace(ctx, ks)) })
	d.ref.keyspace, d.thr.keyspace = ks, ks
}

// fresh gives both sides a new connection with no keyspace.
func (d *diff) fresh() {
	d.ref.keyspace, d.thr.keyspace = "", ""
	d.ref.dial(d.t)
	d.thr.dial(d.t)
}

// ---- rendering ------------------------------------------------------------

// family is one column family of the test keyspace: created on 1.2.19
// through system_add_keyspace, and declared to thriftd in its
// storage-conf.xml.
type family struct {
	name, comparator, subcomparator string // subcomparator: a Super family
	// Validators, which a storage-conf.xml cannot declare: a family with
	// any is created only through system_add_keyspace.
	keyValidator, defaultValidator string
	columns                        map[string]string // column name -> validator
}

// declarable reports whether storage-conf.xml can declare f: 0.6's
// comparators, no validators.
func (f family) declarable() bool {
	types06 := map[string]bool{"": true, "BytesType": true, "UTF8Type": true, "AsciiType": true,
		"LongType": true, "TimeUUIDType": true, "LexicalUUIDType": true}
	return types06[f.comparator] && types06[f.subcomparator] &&
		f.keyValidator == "" && f.defaultValidator == "" && len(f.columns) == 0
}

var families = []family{
	{name: "Std", comparator: "BytesType"},
	{name: "Utf", comparator: "UTF8Type"},
	{name: "Ascii", comparator: "AsciiType"},
	{name: "Long", comparator: "LongType"},
	{name: "TimeUUID", comparator: "TimeUUIDType"},
	{name: "LexUUID", comparator: "LexicalUUIDType"},
	{name: "Super", comparator: "BytesType", subcomparator: "BytesType"},
	{name: "SuperLong", comparator: "UTF8Type", subcomparator: "LongType"},
	{name: "Ranges", comparator: "UTF8Type"},
	{name: "Typed", comparator: "UTF8Type", keyValidator: "LongType", defaultValidator: "UTF8Type",
		columns: map[string]string{"age": "LongType", "stamp": "TimeUUIDType", "raw": "BytesType"}},
	{name: "SuperTyped", comparator: "LongType", subcomparator: "UTF8Type", defaultValidator: "LongType"},
}

func init() {
	// One family per type of typeCases, its names and values of that type.
	for i, tc := range typeCases {
		families = append(families, family{name: typeFamily(i), comparator: tc.typ, defaultValidator: tc.typ})
	}
}

func typeFamily(i int) string { return fmt.Sprintf("Type%d", i) }

// ksDef is the test keyspace as a 1.2 client creates it: only names and
// types given, every other property left to the server's defaults. With
// declarableOnly, the families storage-conf.xml can declare.
func ksDef(name string, declarableOnly bool) *cassandra19.KsDef {
	ks := cassandra19.NewKsDef()
	ks.Name = name
	ks.StrategyClass = "org.apache.cassandra.locator.SimpleStrategy"
	ks.StrategyOptions = map[string]string{"replication_factor": "1"}
	ks.CfDefs = []*cassandra19.CfDef{}
	for _, f := range families {
		if declarableOnly && !f.declarable() {
			continue
		}
		cf := cassandra19.NewCfDef()
		cf.Keyspace, cf.Name, cf.ComparatorType = name, f.name, f.comparator
		if f.subcomparator != "" {
			cf.ColumnType = "Super"
			cf.SubcomparatorType = thrift.StringPtr(f.subcomparator)
		}
		if f.keyValidator != "" {
			cf.KeyValidationClass = thrift.StringPtr(f.keyValidator)
		}
		if f.defaultValidator != "" {
			cf.DefaultValidationClass = thrift.StringPtr(f.defaultValidator)
		}
		if f.columns != nil {
			cf.ColumnMetadata = []*cassandra19.ColumnDef{}
			for n, v := range f.columns {
				cf.ColumnMetadata = append(cf.ColumnMetadata, &cassandra19.ColumnDef{Name: []byte(n), ValidationClass: v})
			}
		}
		ks.CfDefs = append(ks.CfDefs, cf)
	}
	return ks
}

// storageConf is thriftd's storage-conf.xml: the default configuration
// of Cassandra 0.6 (RandomPartitioner, as the reference node runs) with
// its keyspaces replaced by the test keyspace's declarable families, or
// by none when name is "".
func storageConf(t *testing.T, name string) string {
	base, err := os.ReadFile(testenv.Fixture("storage-conf-0.6-default.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("<Keyspaces>\n")
	if name == "" {
		b.WriteString("  </Keyspaces>")
	} else {
		fmt.Fprintf(&b, "    <Keyspace Name=%q>\n", name)
	}
	for _, f := range families {
		if name == "" || !f.declarable() {
			continue
		}
		if f.subcomparator != "" {
			fmt.Fprintf(&b, "      <ColumnFamily Name=%q ColumnType=\"Super\" CompareWith=%q CompareSubcolumnsWith=%q/>\n", f.name, f.comparator, f.subcomparator)
		} else {
			fmt.Fprintf(&b, "      <ColumnFamily Name=%q CompareWith=%q/>\n", f.name, f.comparator)
		}
	}
	if name != "" {
		b.WriteString("      <ReplicaPlacementStrategy>org.apache.cassandra.locator.RackUnawareStrategy</ReplicaPlacementStrategy>\n")
		b.WriteString("      <ReplicationFactor>1</ReplicationFactor>\n")
		b.WriteString("      <EndPointSnitch>org.apache.cassandra.locator.EndPointSnitch</EndPointSnitch>\n")
		b.WriteString("    </Keyspace>\n  </Keyspaces>")
	}
	conf := string(base)
	i, j := strings.Index(conf, "<Keyspaces>"), strings.Index(conf, "</Keyspaces>")
	if i < 0 || j < 0 {
		t.Fatal("the default configuration has no Keyspaces element")
	}
	conf = conf[:i] + b.String() + conf[j+len("</Keyspaces>"):]
	if !strings.Contains(conf, "<Partitioner>org.apache.cassandra.dht.RandomPartitioner</Partitioner>") {
		t.Fatal("the default configuration's partitioner is not RandomPartitioner")
	}
	return strings.Replace(conf, "<ThriftFramedTransport>false</ThriftFramedTransport>", "<ThriftFramedTransport>true</ThriftFramedTransport>", 1)
}

// noSchemaChanges is thriftd's answer to system_* on a store that cannot
// change its schema at run time.
const noSchemaChanges = "cannot be changed at run time"

// setup creates a keyspace of a fresh name, through system_add_keyspace,
// on the reference node (where it is dropped when the test ends) and on a
// thriftd of its own, and returns the comparison with both connections in
// that keyspace. On a store that cannot change its schema at run time
// thriftd is started again with the keyspace declared in its
// storage-conf.xml instead, and both sides then have only the families a
// storage-conf.xml can declare (the others are unknown to both).
func setup(t *testing.T) *diff {
	t.Helper()
	rnd := make([]byte, 4)
	if _, err := rand.Read(rnd); err != nil {
		t.Fatal(err)
	}
	ks := "Diff_" + hex.EncodeToString(rnd)
	startThriftd := func(name string) *testenv.Node {
		conf := t.TempDir() + "/storage-conf.xml"
		if err := os.WriteFile(conf, []byte(storageConf(t, name)), 0o644); err != nil {
			t.Fatal(err)
		}
		n := testenv.NewNode(t, thriftdBin, conf, "-api", "19.x")
		n.Start()
		return n
	}
	n := startThriftd("")
	d := &diff{t: t, ks: ks, excused: map[string]int{},
		ref: &side{name: releases[referenceVersion()], addr: testenv.Reference(t, referenceVersion(), "random")}, thr: &side{name: "thriftd", addr: n.Addr}}
	if d.ref.name == "" {
		t.Fatalf("THRIFTD_DIFF19_REFERENCE=%s: no such reference node (1.2, 2.1 or 3.11)", referenceVersion())
	}
	if survey() {
		t.Logf("survey against Cassandra %s: differences from 1.2.19's expectations are reported, not failed", d.ref.name)
	}
	d.ref.dial(t)
	d.thr.dial(t)
	t.Cleanup(func() {
		d.ref.c.Close()
		d.thr.c.Close()
	})
	t.Cleanup(func() {
		c, err := testenv.Dial19(d.ref.addr, true, 3*time.Minute)
		if err != nil {
			t.Logf("dropping %s on the reference node: %v", ks, err)
			return
		}
		defer c.Close()
		if _, err := c.SystemDropKeyspace(ctx, ks); err != nil {
			t.Logf("dropping %s on the reference node: %v", ks, err)
		}
	})
	_, err := d.thr.c.SystemAddKeyspace(ctx, ksDef(ks, false))
	var ire *cassandra19.InvalidRequestException
	switch {
	case err == nil:
		if _, err := d.ref.c.SystemAddKeyspace(ctx, ksDef(ks, false)); err != nil {
			t.Fatalf("creating keyspace %s on the reference node: %v", ks, err)
		}
	case errors.As(err, &ire) && strings.Contains(ire.Why, noSchemaChanges):
		d.declared = true
		t.Logf("thriftd's %s store cannot change its schema at run time: the test keyspace is declared in storage-conf.xml, without the families that need validators", testenv.Backend())
		n.Stop()
		d.thr.addr = startThriftd(ks).Addr
		d.thr.dial(t)
		if _, err := d.ref.c.SystemAddKeyspace(ctx, ksDef(ks, true)); err != nil {
			t.Fatalf("creating keyspace %s on the reference node: %v", ks, err)
		}
	default:
		t.Fatalf("creating keyspace %s on thriftd: %v", ks, err)
	}
	return d
}

// report prints the counts and checks that every difference on purpose
// was seen.
func (d *diff) report() {
	d.t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	onPurpose, pending := 0, d.excused[declaredExcuse.name]
	for _, e := range excuses {
		n := d.excused[e.name]
		switch {
		case e.pending:
			pending += n
			if n == 0 && (!e.cassandraOnly || onCassandra()) && !(e.schemaChange && d.declared) {
				d.t.Logf("pending difference no longer seen, remove it from the list: %s", e.name)
			}
		default:
			onPurpose += n
			if n == 0 && !(e.levelDBOnly && onCassandra()) && !(e.schemaChange && d.declared) {
				if survey() {
					d.t.Logf("difference on purpose with 1.2.19 not seen with %s: %s", d.ref.name, e.name)
				} else {
					d.t.Errorf("difference on purpose no longer seen: remove it from excuses and docs/api19.md: %s", e.name)
				}
			}
		}
	}
	fmt.Printf("diff19: %d calls compared on Cassandra %s and thriftd (%s backend): %d unexpected differences, %d on purpose (docs/api19.md), %d pending in other parts of thriftd\n",
		d.calls, d.ref.name, testenv.Backend(), d.differences, onPurpose, pending)
	if survey() {
		fmt.Printf("diff19: survey against Cassandra %s: %d of %d calls answered alike (%d more as excused for 1.2.19); the %d that differ:\n",
			d.ref.name, d.calls-d.differences-onPurpose-pending, d.calls, onPurpose+pending, d.differences)
		for _, l := range d.differing {
			fmt.Printf("  differs: %s\n", l)
		}
	}
	for _, e := range append([]excuse{declaredExcuse}, excuses...) {
		if n := d.excused[e.name]; n > 0 {
			kind := "on purpose"
			if e.pending {
				kind = "pending"
			}
			fmt.Printf("  %3d %s: %s\n", n, kind, e.name)
		}
	}
}
