// Package catalog holds the schema a thriftd serves while it can change:
// the keyspaces of storage-conf.xml, and those the 19.x API's system_*
// calls create, change and drop, recorded durably in the store
// (engine.SchemaStore) so that a restarted thriftd serves them again.
//
// Readers call Current once per call and use that *schema.Schema, which is
// never modified, for the whole call; a change builds the next schema,
// records it (store.ChangeSchema), and only then swaps it in. Changes are
// made one at a time.
//
// On a store shared by several thriftd processes (the Cassandra store),
// Options.Poll makes the catalog read the recorded schema every Poll (2 s
// by default for such a store) and serve a newer one that another process
// recorded.
//
// Start-up (Resolve) merges storage-conf.xml with what the catalog
// recorded: a keyspace or column family of the file that the catalog never
// took in is created; one it took in before stays as the catalog has it,
// even when dropped through the API; and a file that changes the type or
// comparators of a column family the catalog holds is refused, naming the
// change, since stored names would be misread.
package catalog

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/schema"
)

// Options configure a Catalog.
type Options struct {
	// ParseType resolves a type name of the 19.x API (marshal.Parse).
	// The six types of 0.6 always resolve through marshal.Lookup, so a
	// column family keeps the very types the 0.6 service has always used;
	// nil resolves only those.
	ParseType func(name string) (marshal.Comparator, error)
	// File names the storage-conf.xml in start-up errors.
	File string
	// Poll is how often the recorded schema is read for changes made by
	// other processes sharing the store; 0 never reads it (a store of this
	// process alone).
	Poll time.Duration
	// Logger receives the changes; nil discards them.
	Logger *slog.Logger
	// Adopted are keyspaces served beside the schema, never recorded nor
	// changed (adopt.go).
	Adopted []*schema.Keyspace
}

// Follower is implemented by a shared store that must be told when the
// catalog takes in a schema another process recorded, to serve its
// column families.
type Follower interface {
	FollowSchema(ctx context.Context, next *schema.Schema) error
}

// FirstID is the id of the first column family the catalog numbers, as in
// Cassandra 0.7, where ids below 1000 were the system keyspace's.
const FirstID = 1000

// state is one version of the catalog: the schema and its record.
type state struct {
	schema   *schema.Schema
	fromFile []string
	encoded  []byte
}

// Catalog is the current schema and the changes to it. A change the
// client is at fault for fails with *InvalidError.
type Catalog struct {
	store engine.SchemaStore
	opts  Options
	log   *slog.Logger

	cur  atomic.Pointer[state]
	view atomic.Pointer[adoptedView]
	mu   sync.Mutex // one change at a time

	stop chan struct{}
	done sync.WaitGroup
}

// Start is the schema a thriftd starts with: storage-conf.xml merged with
// what the store recorded (Resolve).
type Start struct {
	Schema   *schema.Schema
	FromFile []string
	// Recorded is what the store held, nil when nothing.
	Recorded []byte
}

// Open reads the store's recorded schema, merges the file's schema into it
// (Resolve) and returns the catalog (New).
func Open(ctx context.Context, store engine.SchemaStore, file *schema.Schema, o Options) (*Catalog, error) {
	rec, err := store.StoredSchema(ctx)
	if err != nil {
		return nil, err
	}
	start, err := Resolve(file, rec, o)
	if err != nil {
		return nil, err
	}
	return New(ctx, store, start, o)
}

// New returns the catalog serving start.Schema over store, and records
// start.Schema unless that is what the store holds already.
func New(ctx context.Context, store engine.SchemaStore, start *Start, o Options) (*Catalog, error) {
	c := &Catalog{store: store, opts: o, log: o.Logger, stop: make(chan struct{})}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	st := &state{schema: start.Schema, fromFile: start.FromFile}
	enc, err := schema.Marshal(schema.Record{Schema: st.schema, FromFile: st.fromFile})
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(enc, start.Recorded) {
		if err := store.ChangeSchema(ctx, st.schema, enc); err != nil {
			return nil, fmt.Errorf("record the schema: %w", err)
		}
	}
	st.encoded = enc
	c.cur.Store(st)
	if o.Poll > 0 {
		c.done.Add(1)
		go c.poll()
	}
	return c, nil
}

// Close stops polling.
func (c *Catalog) Close() {
	select {
	case <-c.stop:
	default:
		close(c.stop)
	}
	c.done.Wait()
}

// Current is the schema being served.
func (c *Catalog) Current() *schema.Schema { return c.served(c.cur.Load()) }

// SchemaVersions is describe_schema_versions: the store's answer.
func (c *Catalog) SchemaVersions(ctx context.Context) (map[string][]string, error) {
	return c.store.SchemaVersions(ctx)
}

// resolver is the type lookup of the catalog: 0.6's six types through
// marshal.Lookup, everything else through ParseType.
func resolver(o Options) func(string) (marshal.Comparator, error) {
	return func(name string) (marshal.Comparator, error) {
		if t, err := marshal.Lookup(name); err == nil {
			return t, nil
		}
		if o.ParseType == nil {
			return marshal.Lookup(name)
		}
		return o.ParseType(name)
	}
}

// resolver12 is the type lookup of a family whose Types12 is set: as
// resolver, but TimeUUIDType through ParseType, whose ties of equal
// timestamps are broken by signed bytes, as 1.2 broke them. (0.6's other
// five types order as 1.2's of the same name.)
func resolver12(o Options) func(string) (marshal.Comparator, error) {
	resolve := resolver(o)
	return func(name string) (marshal.Comparator, error) {
		t, err := resolve(name)
		if _, old := t.(marshal.TimeUUIDType); old && o.ParseType != nil {
			return o.ParseType(name)
		}
		return t, err
	}
}

// newVersion is a time UUID, as Cassandra's schema versions.
func newVersion() string {
	id, err := uuid.NewUUID()
	if err != nil {
		id = uuid.New()
	}
	return id.String()
}

// Resolve merges storage-conf.xml's schema with the one the store
// recorded (nil when none), by the start-up rules of the package comment.
func Resolve(file *schema.Schema, recorded []byte, o Options) (*Start, error) {
	resolve := resolver(o)
	if recorded == nil {
		next := cloneSchema(file)
		next.Version = newVersion()
		var from []string
		for _, name := range next.KeyspaceNames() {
			ks := next.Keyspaces[name]
			if ks.System {
				continue
			}
			from = append(from, name)
			for _, cfName := range sortedFamilies(ks) {
				from = append(from, name+"."+cfName)
				ks.ColumnFamilies[cfName] = withID(next, ks.ColumnFamilies[cfName])
			}
		}
		return &Start{Schema: next, FromFile: from}, nil
	}
	rec, err := schema.Unmarshal(recorded, resolve, resolver12(o))
	if err != nil {
		return nil, err
	}
	if got, want := rec.Schema.Partitioner.Name(), file.Partitioner.Name(); got != want {
		return nil, fmt.Errorf("the schema recorded in the store places rows by %s, but %s's Partitioner is %s; thriftd will not start (restore the Partitioner or use another store)", got, o.File, want)
	}
	next := cloneSchema(rec.Schema)
	next.ClusterName = file.ClusterName
	seen := map[string]bool{}
	for _, n := range rec.FromFile {
		seen[n] = true
	}
	from := append([]string(nil), rec.FromFile...)
	var drift []string
	changed := false
	for _, ksName := range file.KeyspaceNames() {
		fks := file.Keyspaces[ksName]
		if fks.System {
			continue
		}
		ks := next.Keyspaces[ksName]
		if seen[ksName] && ks == nil {
			continue // dropped through the API: stays dropped
		}
		if !seen[ksName] {
			from = append(from, ksName)
			changed = true
		}
		if ks == nil {
			k := *fks
			k.ColumnFamilies = map[string]*schema.ColumnFamily{}
			ks = &k
			next.Keyspaces[ksName] = ks
			o.log().Info("keyspace of the file created", "keyspace", ksName, "file", o.File)
		}
		for _, cfName := range sortedFamilies(fks) {
			fcf := fks.ColumnFamilies[cfName]
			name := ksName + "." + cfName
			held := ks.ColumnFamilies[cfName]
			if held != nil {
				drift = append(drift, compare(o.File, fcf, held)...)
			}
			if seen[name] {
				continue
			}
			from = append(from, name)
			changed = true
			if held == nil {
				ks.ColumnFamilies[cfName] = withID(next, fcf)
				o.log().Info("column family of the file created", "keyspace", ksName, "column_family", cfName, "file", o.File)
			}
		}
	}
	if len(drift) > 0 {
		return nil, fmt.Errorf("%s; thriftd will not start because stored names would be misread (restore the file's definitions, or drop those column families through the 19.x API and let the file create them again)", strings.Join(drift, "; "))
	}
	if changed {
		next.Version = newVersion()
	}
	return &Start{Schema: next, FromFile: from, Recorded: recorded}, nil
}

func (o Options) log() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// compare names what the file changed of a column family the catalog
// holds, in the words of the store's drift check.
func compare(file string, fcf, held *schema.ColumnFamily) []string {
	where := fmt.Sprintf("%s declares column family %s.%s", file, fcf.Keyspace, fcf.Name)
	if fcf.Super != held.Super {
		return []string{fmt.Sprintf("%s with ColumnType %s, but the store holds it as %s", where, fcf.Type(), held.Type())}
	}
	var out []string
	if a, b := name(fcf.Comparator), name(held.Comparator); a != b {
		out = append(out, fmt.Sprintf("%s with CompareWith %s, but the store holds it with %s", where, a, b))
	}
	if a, b := name(fcf.SubComparator), name(held.SubComparator); fcf.Super && a != b {
		out = append(out, fmt.Sprintf("%s with CompareSubcolumnsWith %s, but the store holds it with %s", where, a, b))
	}
	return out
}

func name(t marshal.Comparator) string {
	if t == nil {
		return ""
	}
	return t.Name()
}

func sortedFamilies(ks *schema.Keyspace) []string {
	names := make([]string, 0, len(ks.ColumnFamilies))
	for n := range ks.ColumnFamilies {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// cloneSchema copies s down to the keyspaces' family maps; the families
// themselves are shared, never modified.
func cloneSchema(s *schema.Schema) *schema.Schema {
	out := *s
	out.Keyspaces = make(map[string]*schema.Keyspace, len(s.Keyspaces))
	for n, ks := range s.Keyspaces {
		k := *ks
		k.ColumnFamilies = make(map[string]*schema.ColumnFamily, len(ks.ColumnFamilies))
		for cn, cf := range ks.ColumnFamilies {
			k.ColumnFamilies[cn] = cf
		}
		out.Keyspaces[n] = &k
	}
	return &out
}

// withID returns cf with an id no family of s has, unless it has one.
func withID(s *schema.Schema, cf *schema.ColumnFamily) *schema.ColumnFamily {
	if cf.ID != 0 && !idTaken(s, cf) {
		return cf
	}
	next := int32(FirstID)
	for _, ks := range s.Keyspaces {
		if ks.System {
			continue
		}
		for _, other := range ks.ColumnFamilies {
			next = max(next, other.ID+1)
		}
	}
	c := *cf
	c.ID = next
	return &c
}

func idTaken(s *schema.Schema, cf *schema.ColumnFamily) bool {
	for _, ks := range s.Keyspaces {
		for _, other := range ks.ColumnFamilies {
			if other.ID == cf.ID && (other.Keyspace != cf.Keyspace || other.Name != cf.Name) {
				return true
			}
		}
	}
	return false
}

// poll takes in schemas other processes recorded.
func (c *Catalog) poll() {
	defer c.done.Done()
	t := time.NewTicker(c.opts.Poll)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		if err := c.refresh(context.Background()); err != nil {
			c.log.Warn("reading the recorded schema failed; retrying", "err", err)
		}
		if err := c.Fresh(context.Background()); err != nil {
			c.log.Warn("reading the adopted keyspaces' schema failed; retrying", "err", err)
		}
	}
}

// refresh serves the recorded schema when another process changed it.
func (c *Catalog) refresh(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	rec, err := c.store.StoredSchema(ctx)
	if err != nil || rec == nil || bytes.Equal(rec, c.cur.Load().encoded) {
		return err
	}
	r, err := schema.Unmarshal(rec, resolver(c.opts), resolver12(c.opts))
	if err != nil {
		return err
	}
	if f, ok := c.store.(Follower); ok {
		if err := f.FollowSchema(ctx, r.Schema); err != nil {
			return err
		}
	}
	c.cur.Store(&state{schema: r.Schema, fromFile: r.FromFile, encoded: rec})
	c.log.Info("schema changed by another process", "version", r.Schema.Version)
	return nil
}
