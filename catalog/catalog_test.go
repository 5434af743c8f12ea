package catalog

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/config"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/ldbstore"
	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

var ctx = context.Background()

const keyspaces = `<Keyspaces>
    <Keyspace Name="Keyspace1">
      <ColumnFamily Name="Standard1" CompareWith="BytesType"/>
      <ColumnFamily Name="Super1" ColumnType="Super" CompareWith="UTF8Type" CompareSubcolumnsWith="LongType"/>
      %EXTRA%
      <ReplicaPlacementStrategy>org.apache.cassandra.locator.RackUnawareStrategy</ReplicaPlacementStrategy>
      <ReplicationFactor>1</ReplicationFactor>
      <EndPointSnitch>org.apache.cassandra.locator.EndPointSnitch</EndPointSnitch>
    </Keyspace>
    %KS%
  </Keyspaces>`

// conf is the repository's 0.6 test configuration with keyspaces.
var conf = func() string {
	data, err := os.ReadFile("../test/fixtures/storage-conf-0.6-test.xml")
	if err != nil {
		panic(err)
	}
	s := string(data)
	return s[:strings.Index(s, "<Keyspaces>")] + keyspaces + s[strings.Index(s, "</Keyspaces>")+len("</Keyspaces>"):]
}()

const ksTail = `<ReplicaPlacementStrategy>org.apache.cassandra.locator.RackUnawareStrategy</ReplicaPlacementStrategy>
<ReplicationFactor>1</ReplicationFactor><EndPointSnitch>org.apache.cassandra.locator.EndPointSnitch</EndPointSnitch>`

// fileSchema builds the schema of conf with extra column families in
// Keyspace1 and extra keyspaces.
func fileSchema(t testing.TB, extraCF, extraKS string) *schema.Schema {
	t.Helper()
	text := strings.Replace(strings.Replace(conf, "%EXTRA%", extraCF, 1), "%KS%", extraKS, 1)
	cfg, err := config.ParseWith([]byte(text), "storage-conf.xml", config.Options{AllowNoKeyspaces: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := schema.FromConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// node is a store and its catalog, opened as thriftd opens them.
type node struct {
	st  *ldbstore.Store
	cat *Catalog
}

func openNode(t testing.TB, dir string, file *schema.Schema) (*node, error) {
	t.Helper()
	o := Options{File: "storage-conf.xml", ParseType: marshal.Parse}
	var start *Start
	st, err := ldbstore.Open(dir, file, ldbstore.Options{PurgeInterval: -1, Schema: func(rec []byte) (*schema.Schema, error) {
		var err error
		start, err = Resolve(file, rec, o)
		if err != nil {
			return nil, err
		}
		return start.Schema, nil
	}})
	if err != nil {
		return nil, err
	}
	cat, err := New(ctx, st, start, o)
	if err != nil {
		st.Close()
		return nil, err
	}
	return &node{st, cat}, nil
}

func mustOpen(t *testing.T, dir string, file *schema.Schema) *node {
	t.Helper()
	n, err := openNode(t, dir, file)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.close() })
	return n
}

func (n *node) close() {
	n.cat.Close()
	n.st.Close()
}

func bytesType(t testing.TB) marshal.Comparator {
	c, err := marshal.Lookup("BytesType")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func newKeyspace(name string, cfs ...*schema.ColumnFamily) *schema.Keyspace {
	ks := &schema.Keyspace{Name: name, ColumnFamilies: map[string]*schema.ColumnFamily{},
		Options: schema.KeyspaceOptions{StrategyClass: "org.apache.cassandra.locator.SimpleStrategy",
			StrategyOptions: map[string]string{"replication_factor": "1"}, DurableWrites: true}}
	for _, cf := range cfs {
		ks.ColumnFamilies[cf.Name] = cf
	}
	return ks
}

func put(t *testing.T, st engine.Store, ks, cf, key, name, value string) {
	t.Helper()
	if err := st.Apply(ctx, ks, []engine.RowMutation{storetest.Put(cf, key, name, value, 1)}); err != nil {
		t.Fatal(err)
	}
}

func get(t *testing.T, st engine.Store, ks, cf, key string) string {
	t.Helper()
	r, err := st.Get(ctx, ks, key, engine.Query{ColumnFamily: cf, Predicate: storetest.All(10)})
	if err != nil {
		t.Fatal(err)
	}
	return storetest.Render(r)
}

func TestChangesSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	file := fileSchema(t, "", "")
	n := mustOpen(t, dir, file)
	v0 := n.cat.Current().Version
	if v0 == "" {
		t.Fatal("the first schema has no version")
	}
	cf := &schema.ColumnFamily{Keyspace: "Blog", Name: "Posts", Comparator: bytesType(t), Comment: "posts", HasComment: true,
		GCGraceSeconds: 60, Options: schema.DefaultFamilyOptions()}
	v1, err := n.cat.AddKeyspace(ctx, newKeyspace("Blog", cf))
	if err != nil {
		t.Fatal(err)
	}
	if v1 == v0 || n.cat.Current().Version != v1 {
		t.Fatalf("versions: first %s, after the change %s, current %s", v0, v1, n.cat.Current().Version)
	}
	put(t, n.st, "Blog", "Posts", "k", "a", "v")
	if _, err := n.cat.AddKeyspace(ctx, newKeyspace("BLOG")); !isInvalid(err, `Keyspace names must be case-insensitively unique ("BLOG" conflicts with "Blog")`) {
		t.Errorf("a keyspace differing in case: %v", err)
	}
	// A storage-conf keyspace's family is dropped, another updated.
	if _, err := n.cat.DropColumnFamily(ctx, "Keyspace1", "Super1"); err != nil {
		t.Fatal(err)
	}
	up := *file.ColumnFamily("Keyspace1", "Standard1")
	up.Comment, up.HasComment = "changed", true
	if _, err := n.cat.UpdateColumnFamily(ctx, &up); err != nil {
		t.Fatal(err)
	}
	n.close()

	n = mustOpen(t, dir, file)
	s := n.cat.Current()
	if got := s.ColumnFamily("Blog", "Posts"); got == nil || got.Comment != "posts" || got.GCGraceSeconds != 60 || got.ID < FirstID {
		t.Fatalf("Blog.Posts after a restart: %+v", got)
	}
	if s.ColumnFamily("Keyspace1", "Super1") != nil {
		t.Error("a storage-conf family dropped through the API came back from the file")
	}
	if got := s.ColumnFamily("Keyspace1", "Standard1"); got.Comment != "changed" {
		t.Errorf("Standard1's comment after a restart: %q", got.Comment)
	}
	if got := get(t, n.st, "Blog", "Posts", "k"); got != "a=v@1" {
		t.Errorf("data after a restart: %q", got)
	}
	if s.Version != n.cat.Current().Version {
		t.Error("version changed")
	}
}

func isInvalid(err error, why string) bool {
	var ire *InvalidError
	return errors.As(err, &ire) && ire.Why == why
}

func TestFileAdditionsAreCreatedAtStart(t *testing.T) {
	dir := t.TempDir()
	n := mustOpen(t, dir, fileSchema(t, "", ""))
	v := n.cat.Current().Version
	n.close()
	n = mustOpen(t, dir, fileSchema(t, "", ""))
	if n.cat.Current().Version != v {
		t.Error("an unchanged file changed the schema's version")
	}
	n.close()
	n = mustOpen(t, dir, fileSchema(t, `<ColumnFamily Name="Standard2" CompareWith="LongType"/>`,
		`<Keyspace Name="Keyspace2"><ColumnFamily Name="CF" CompareWith="BytesType"/>`+ksTail+`</Keyspace>`))
	s := n.cat.Current()
	if s.ColumnFamily("Keyspace1", "Standard2") == nil || s.ColumnFamily("Keyspace2", "CF") == nil {
		t.Fatal("families added to the file were not created")
	}
	if s.Version == v {
		t.Error("the schema's version did not change")
	}
	put(t, n.st, "Keyspace2", "CF", "k", "a", "v")
	if _, err := n.cat.DropKeyspace(ctx, "Keyspace2"); err != nil {
		t.Fatal(err)
	}
	n.close()
	n = mustOpen(t, dir, fileSchema(t, "", `<Keyspace Name="Keyspace2"><ColumnFamily Name="CF" CompareWith="BytesType"/>`+ksTail+`</Keyspace>`))
	if n.cat.Current().Keyspace("Keyspace2") != nil {
		t.Error("a file keyspace dropped through the API came back at start")
	}
	if _, err := n.cat.AddKeyspace(ctx, newKeyspace("Keyspace2", &schema.ColumnFamily{Keyspace: "Keyspace2", Name: "CF", Comparator: bytesType(t)})); err != nil {
		t.Fatal(err)
	}
	if got := get(t, n.st, "Keyspace2", "CF", "k"); got != "" {
		t.Errorf("a re-created family holds %q", got)
	}
}

func TestFileComparatorChangeIsRefused(t *testing.T) {
	dir := t.TempDir()
	n := mustOpen(t, dir, fileSchema(t, "", ""))
	n.close()
	changed := fileSchema(t, "", "")
	text := strings.Replace(conf, `Name="Standard1" CompareWith="BytesType"`, `Name="Standard1" CompareWith="UTF8Type"`, 1)
	text = strings.Replace(strings.Replace(text, "%EXTRA%", "", 1), "%KS%", "", 1)
	cfg, err := config.ParseWith([]byte(text), "storage-conf.xml", config.Options{AllowNoKeyspaces: true})
	if err != nil {
		t.Fatal(err)
	}
	if changed, err = schema.FromConfig(cfg); err != nil {
		t.Fatal(err)
	}
	_, err = openNode(t, dir, changed)
	if err == nil || !strings.Contains(err.Error(), "Keyspace1.Standard1 with CompareWith org.apache.cassandra.db.marshal.UTF8Type, but the store holds it with org.apache.cassandra.db.marshal.BytesType") {
		t.Fatalf("err = %v", err)
	}
}

func TestStartWithNoKeyspace(t *testing.T) {
	dir := t.TempDir()
	text := conf[:strings.Index(conf, "<Keyspaces>")] + "<Keyspaces/>" + conf[strings.Index(conf, "</Keyspaces>")+len("</Keyspaces>"):]
	cfg, err := config.ParseWith([]byte(text), "storage-conf.xml", config.Options{AllowNoKeyspaces: true})
	if err != nil {
		t.Fatal(err)
	}
	file, err := schema.FromConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n := mustOpen(t, dir, file)
	if got := n.cat.Current().KeyspaceNames(); len(got) != 1 || got[0] != "system" {
		t.Fatalf("keyspaces: %v", got)
	}
	if _, err := n.cat.AddKeyspace(ctx, newKeyspace("K", &schema.ColumnFamily{Keyspace: "K", Name: "C", Comparator: bytesType(t)})); err != nil {
		t.Fatal(err)
	}
	put(t, n.st, "K", "C", "k", "a", "v")
	n.close()
	n = mustOpen(t, dir, file)
	if got := get(t, n.st, "K", "C", "k"); got != "a=v@1" {
		t.Errorf("after a restart: %q", got)
	}
}

func TestSchemaVersionsIsTheCurrentVersion(t *testing.T) {
	n := mustOpen(t, t.TempDir(), fileSchema(t, "", ""))
	v, err := n.cat.DropColumnFamily(ctx, "Keyspace1", "Super1")
	if err != nil {
		t.Fatal(err)
	}
	got, err := n.cat.SchemaVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[v]) != 1 {
		t.Fatalf("SchemaVersions = %v, want one node at %s", got, v)
	}
}

// A family of 1.2's types keeps them across a restart; the six types of
// 0.6 resolve to 0.6's, whatever the change named.
func TestTypesSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	file := fileSchema(t, "", "")
	n := mustOpen(t, dir, file)
	parse := func(name string) marshal.Comparator {
		c, err := marshal.Parse(name)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cf := &schema.ColumnFamily{Keyspace: "Keyspace1", Name: "Typed", Comparator: parse("CompositeType(Int32Type,UTF8Type)"),
		KeyValidator: parse("UUIDType"), DefaultValidator: parse("UTF8Type"), Options: schema.DefaultFamilyOptions()}
	if _, err := n.cat.AddColumnFamily(ctx, cf); err != nil {
		t.Fatal(err)
	}
	n.close()
	n = mustOpen(t, dir, file)
	got := n.cat.Current().ColumnFamily("Keyspace1", "Typed")
	if got == nil || got.Comparator.Name() != cf.Comparator.Name() || got.KeyValidator.Name() != cf.KeyValidator.Name() {
		t.Fatalf("after a restart: %+v", got)
	}
	if _, ok := got.DefaultValidator.(marshal.UTF8Type); !ok {
		t.Errorf("UTF8Type resolved to %T, not 0.6's", got.DefaultValidator)
	}
}

// A TimeUUIDType family created through the 19.x API orders names of
// equal timestamps as 1.2 does (signed bytes), before and after a restart
// and an update; one of storage-conf.xml, or one recorded before the
// catalog marked 19.x families (Types12), keeps 0.6's order (unsigned),
// in which its stored names were written.
func TestTimeUUIDOrderOf19xFamilies(t *testing.T) {
	dir := t.TempDir()
	file := fileSchema(t, `<ColumnFamily Name="Time06" CompareWith="TimeUUIDType"/>`, "")
	n := mustOpen(t, dir, file)
	old, err := marshal.Lookup("TimeUUIDType")
	if err != nil {
		t.Fatal(err)
	}
	cf := &schema.ColumnFamily{Keyspace: "Keyspace1", Name: "Time12", Comparator: old, Options: schema.DefaultFamilyOptions()}
	if _, err := n.cat.AddColumnFamily(ctx, cf); err != nil {
		t.Fatal(err)
	}
	// Equal timestamps; byte 8 is 0x80 in one (negative, signed) and 0x00
	// in the other.
	neg := []byte{1, 2, 3, 4, 5, 6, 0x11, 8, 0x80, 0, 0, 0, 0, 0, 0, 1}
	pos := []byte{1, 2, 3, 4, 5, 6, 0x11, 8, 0x00, 0, 0, 0, 0, 0, 0, 2}
	order := func(n *node, cf string) string {
		t.Helper()
		r, err := n.st.Get(ctx, "Keyspace1", "k", engine.Query{ColumnFamily: cf, Predicate: storetest.All(10)})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range r.Columns {
			out = append(out, string(c.Value))
		}
		return strings.Join(out, " ")
	}
	for _, cf := range []string{"Time06", "Time12"} {
		put(t, n.st, "Keyspace1", cf, "k", string(pos), "pos")
		put(t, n.st, "Keyspace1", cf, "k", string(neg), "neg")
	}
	check := func(n *node, when string) {
		t.Helper()
		if g := order(n, "Time06"); g != "pos neg" {
			t.Errorf("%s: storage-conf.xml's TimeUUIDType family reads %q, want 0.6's order \"pos neg\"", when, g)
		}
		if g := order(n, "Time12"); g != "neg pos" {
			t.Errorf("%s: the 19.x TimeUUIDType family reads %q, want 1.2's order \"neg pos\"", when, g)
		}
	}
	check(n, "created")
	up := *n.cat.Current().ColumnFamily("Keyspace1", "Time12")
	up.Comparator, up.Types12, up.Comment, up.HasComment = old, false, "updated", true
	if _, err := n.cat.UpdateColumnFamily(ctx, &up); err != nil {
		t.Fatal(err)
	}
	check(n, "updated")
	n.close()
	n = mustOpen(t, dir, file)
	check(n, "after a restart")
	n.close()

	// A record of a 19.x family without the mark resolves 0.6's type.
	s := n.cat.Current()
	before := cloneSchema(s)
	ks := *before.Keyspaces["Keyspace1"]
	ks.ColumnFamilies = map[string]*schema.ColumnFamily{}
	for name, f := range s.Keyspaces["Keyspace1"].ColumnFamilies {
		c := *f
		c.Types12 = false
		ks.ColumnFamilies[name] = &c
	}
	before.Keyspaces["Keyspace1"] = &ks
	rec, err := schema.Marshal(schema.Record{Schema: before, FromFile: []string{"Keyspace1", "Keyspace1.Standard1", "Keyspace1.Super1", "Keyspace1.Time06"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(rec), "types_1_2") {
		t.Fatalf("the mark is recorded for a family without it: %s", rec)
	}
	start, err := Resolve(file, rec, Options{ParseType: marshal.Parse})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := start.Schema.ColumnFamily("Keyspace1", "Time12").Comparator.(marshal.TimeUUIDType); !ok {
		t.Errorf("an unmarked 19.x family resolved %T, not 0.6's TimeUUIDType", start.Schema.ColumnFamily("Keyspace1", "Time12").Comparator)
	}
}
