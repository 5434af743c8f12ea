// Package ldbstore is the single-node engine.Store on LevelDB
// (github.com/syndtr/goleveldb). See layout.go for the key layout.
package ldbstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	lerrors "github.com/syndtr/goleveldb/leveldb/errors"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/schema"
)

// SyncMode is how a write is made durable before it is acknowledged
// (storage-conf.xml's CommitLogSync).
type SyncMode int

const (
	// Periodic: a write has reached the operating system before Apply
	// returns (it survives the process being killed) and is fsync'ed within
	// Options.SyncPeriod (an OS crash loses at most that window).
	Periodic SyncMode = iota
	// Batch: a write is fsync'ed before Apply returns. Concurrent writes
	// share one fsync.
	Batch
)

// Options tunes a Store. The zero value of each field means its default.
type Options struct {
	Sync SyncMode
	// SyncPeriod is the fsync interval in Periodic mode. Default 10s.
	SyncPeriod time.Duration
	// GCGrace is how long tombstones are kept (GCGraceSeconds). Default 10 days.
	GCGrace time.Duration
	// PurgeInterval is how often expired tombstones, and the data they
	// shadow, are removed. Default 1 hour; negative disables the
	// background purge (Purge can still be called).
	PurgeInterval time.Duration
	// BlockCacheSize and WriteBufferSize size LevelDB's block cache and
	// memtable. Defaults 32 MiB and 16 MiB.
	BlockCacheSize  int
	WriteBufferSize int
	Logger          *slog.Logger
	// Now is the clock for tombstone deletion times; default time.Now.
	Now func() time.Time
	// Schema, when set, decides the schema Open serves from the one the
	// catalog recorded through ChangeSchema (nil when none was), in place
	// of Open's argument (schema.go).
	Schema func(recorded []byte) (*schema.Schema, error)
	// NodeAddress names this node in SchemaVersions; default 127.0.0.1.
	NodeAddress string
}

func (o *Options) fill() {
	if o.SyncPeriod <= 0 {
		o.SyncPeriod = 10 * time.Second
	}
	if o.GCGrace == 0 {
		o.GCGrace = 864000 * time.Second
	}
	if o.PurgeInterval == 0 {
		o.PurgeInterval = time.Hour
	}
	if o.BlockCacheSize <= 0 {
		o.BlockCacheSize = 32 << 20
	}
	if o.WriteBufferSize <= 0 {
		o.WriteBufferSize = 16 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Store is an engine.Store on one LevelDB database.
type Store struct {
	db    *leveldb.DB
	dir   string
	opts  Options
	part  dht.Partitioner
	cfs   map[cfName]*family
	byID  map[uint32]*family
	token dht.Token

	seed  maphash.Seed
	locks [lockStripes]sync.Mutex
	// newest[i] is the ceiling of the timestamps stored in the rows of
	// slot i, under row lock i % lockStripes; ceiling is the stored
	// ceiling of them all, raised under ceilingMu (newest.go).
	newest    [newestSlots]int64
	ceiling   atomic.Int64
	ceilingMu sync.Mutex
	// writeReads counts the LevelDB reads writes made (a Get or a
	// prefetch walk), for tests of the blind path.
	writeReads atomic.Int64

	// calls counts calls in flight so Close can wait for them. Its write
	// lock also guards replacing db after a write failure (recover.go).
	mu     sync.RWMutex
	closed bool

	failed    atomic.Bool  // a write failed; writes need a reopen
	lastRetry atomic.Int64 // unix nanoseconds of the last reopen attempt

	stop chan struct{}
	idx  indexState // secondary indexes (index.go)
	done sync.WaitGroup

	sch      schemaState  // schema changes (schema.go)
	counters counterState // counter locks and clock (counter.go)

	heads     headClock // row head marker versions (head.go)
	scanStats headStats
	// stale is what each lock stripe knows of its rows' heads, under
	// that stripe's lock (head.go).
	stale [lockStripes]staleStripe
}

const lockStripes = 1024

type cfName struct{ keyspace, name string }

// family is a column family as the store keeps it.
type family struct {
	def    *schema.ColumnFamily
	prefix []byte
	// countersCached is set once ApplyCounters writes into this family,
	// before the counter cache can hold a total of it (counter.go). A family replaced by a schema change or a
	// truncation starts unset, and the change empties the cache.
	countersCached atomic.Bool
}

var _ engine.Store = (*Store)(nil)

// ErrLocked is returned by Open when another process holds the directory.
var ErrLocked = errors.New("data directory is in use by another process")

// Open opens (creating if needed) the store in dir for schema s. It refuses
// to open data written with another partitioner, or whose column families
// changed type or comparator; the error names what changed. Row keys
// written with an earlier encoding of the partitioner are rewritten first
// (upgrade.go).
func Open(dir string, s *schema.Schema, o Options) (*Store, error) {
	o.fill()
	db, err := openLevelDB(dir, o)
	if err != nil {
		switch {
		case isLockError(err):
			return nil, fmt.Errorf("%s: %w (%v)", dir, ErrLocked, err)
		case lerrors.IsCorrupted(err):
			return nil, errDamaged(dir, err)
		}
		return nil, fmt.Errorf("open data directory %s: %w", dir, err)
	}
	if err := checkTables(db, dir); err != nil {
		db.Close()
		return nil, err
	}
	st := &Store{db: db, dir: dir, opts: o, part: s.Partitioner, cfs: map[cfName]*family{}, byID: map[uint32]*family{}, seed: maphash.MakeSeed(), stop: make(chan struct{})}
	s, err = st.resolveSchema(s)
	if err == nil {
		err = st.loadSchema(s)
	}
	if err != nil {
		db.Close()
		if isCorrupted(err) {
			return nil, errDamaged(dir, err)
		}
		return nil, err
	}
	if err := st.loadToken(); err != nil {
		db.Close()
		if isCorrupted(err) {
			return nil, errDamaged(dir, err)
		}
		return nil, err
	}
	if err := st.loadNewest(); err != nil {
		db.Close()
		if isCorrupted(err) {
			return nil, errDamaged(dir, err)
		}
		return nil, err
	}
	err = st.loadHeadClock()
	if err == nil {
		err = st.upgradeHeads()
	}
	if err != nil {
		db.Close()
		if isCorrupted(err) {
			return nil, errDamaged(dir, err)
		}
		return nil, err
	}
	if o.Sync == Periodic {
		st.done.Add(1)
		go st.syncLoop()
	}
	if o.PurgeInterval > 0 {
		st.done.Add(1)
		go st.purgeLoop()
	}
	st.startSchemaWork()
	return st, nil
}

func openLevelDB(dir string, o Options) (*leveldb.DB, error) {
	return leveldb.OpenFile(dir, &opt.Options{
		Filter:             filter.NewBloomFilter(10),
		BlockCacheCapacity: o.BlockCacheSize,
		WriteBuffer:        o.WriteBufferSize,
	})
}

func isLockError(err error) bool {
	// goleveldb reports a held LOCK file as the flock error itself.
	var errno interface{ Temporary() bool }
	return errors.As(err, &errno) && errno.Temporary()
}

// storedSchema is what a data directory remembers of the configuration it
// was written with.
type storedSchema struct {
	Partitioner string `json:"partitioner"`
	// RowKeyVersion is the version of the partitioner's row key encoding
	// (dht.RowKeyVersion); absent means 1.
	RowKeyVersion  int            `json:"row_key_version,omitempty"`
	ColumnFamilies []storedFamily `json:"column_families"`
	// Version is the schema version of the last ChangeSchema; NextID the
	// first id never used; Dropped the ids of dropped and truncated
	// families whose data is left to delete (schema.go).
	Version string   `json:"version,omitempty"`
	NextID  uint32   `json:"next_id,omitempty"`
	Dropped []uint32 `json:"dropped,omitempty"`
	// RowHeads is set once every stored row has a row head marker
	// (head.go): from creation, or after upgradeHeads.
	RowHeads bool `json:"row_heads,omitempty"`
}

type storedFamily struct {
	Keyspace      string `json:"keyspace"`
	Name          string `json:"name"`
	ID            uint32 `json:"id"`
	Type          string `json:"type"`
	Comparator    string `json:"compare_with"`
	SubComparator string `json:"compare_subcolumns_with,omitempty"`
}

var (
	metaSchema = []byte{prefixMeta, 's', 'c', 'h', 'e', 'm', 'a'}
	metaToken  = []byte{prefixMeta, 't', 'o', 'k', 'e', 'n'}
	metaSync   = []byte{prefixMeta, 's', 'y', 'n', 'c'}
)

func (st *Store) loadSchema(s *schema.Schema) error {
	var stored storedSchema
	changed := false
	raw, err := st.db.Get(metaSchema, nil)
	switch {
	case err == leveldb.ErrNotFound:
		stored.Partitioner = s.Partitioner.Name()
		// A store with data but no record of its schema (one lost to
		// damage and repaired) gets its row head markers written.
		empty, err := st.dataEmpty()
		if err != nil {
			return err
		}
		stored.RowHeads = empty
		changed = true
		if v := dht.RowKeyVersion(s.Partitioner); v > 1 {
			stored.RowKeyVersion = v
		}
	case err != nil:
		return fmt.Errorf("%s: read stored schema: %w", st.dir, err)
	default:
		if err := json.Unmarshal(raw, &stored); err != nil {
			return fmt.Errorf("%s: stored schema is unreadable: %w", st.dir, err)
		}
	}
	if stored.Partitioner != s.Partitioner.Name() {
		return fmt.Errorf("%s holds data placed by %s, but the configuration's Partitioner is %s; rows cannot be found under another partitioner, so thriftd will not start (restore the Partitioner or use another data directory)",
			st.dir, stored.Partitioner, s.Partitioner.Name())
	}
	known := map[cfName]*storedFamily{}
	next := nextID(&stored) // ids of dropped families are never reused
	for i := range stored.ColumnFamilies {
		f := &stored.ColumnFamilies[i]
		known[cfName{f.Keyspace, f.Name}] = f
		if f.ID >= next {
			next = f.ID + 1
		}
	}
	var drift []string
	for _, ksName := range s.KeyspaceNames() {
		ks := s.Keyspaces[ksName]
		names := make([]string, 0, len(ks.ColumnFamilies))
		for n := range ks.ColumnFamilies {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			def := ks.ColumnFamilies[n]
			want := describe(def)
			f := known[cfName{ksName, n}]
			if f == nil {
				want.ID = next
				next++
				stored.ColumnFamilies = append(stored.ColumnFamilies, want)
				f = &stored.ColumnFamilies[len(stored.ColumnFamilies)-1]
				changed = true
				st.opts.Logger.Info("new column family", "keyspace", ksName, "column_family", n, "id", want.ID)
			} else {
				drift = append(drift, compareFamily(*f, want)...)
			}
			fam := &family{def: def, prefix: cfPrefix(f.ID)}
			st.cfs[cfName{ksName, n}] = fam
			st.byID[f.ID] = fam
		}
	}
	if len(drift) > 0 {
		return fmt.Errorf("%s was written with another schema; thriftd will not start because stored names would be misread: %s",
			st.dir, joinLines(drift))
	}
	for _, f := range stored.ColumnFamilies {
		if s.ColumnFamily(f.Keyspace, f.Name) == nil {
			st.opts.Logger.Warn("column family is no longer configured; its data is kept untouched", "keyspace", f.Keyspace, "column_family", f.Name)
		}
	}
	stored.RowKeyVersion = max(stored.RowKeyVersion, 1)
	switch want := dht.RowKeyVersion(s.Partitioner); {
	case stored.RowKeyVersion > want:
		return fmt.Errorf("%s was written with row key version %d of %s, newer than this thriftd's %d; thriftd will not start (use the thriftd that wrote it)",
			st.dir, stored.RowKeyVersion, stored.Partitioner, want)
	case stored.RowKeyVersion < want:
		return st.upgradeRowKeys(stored.RowKeyVersion, stored)
	}
	if stored.RowKeyVersion == 1 {
		stored.RowKeyVersion = 0 // stored as absent, as before versions
	}
	if !changed {
		return nil
	}
	raw, err = json.Marshal(stored)
	if err != nil {
		return err
	}
	return st.db.Put(metaSchema, raw, &opt.WriteOptions{Sync: true})
}

// dataEmpty reports whether the store holds no row.
func (st *Store) dataEmpty() (bool, error) {
	it := st.db.NewIterator(util.BytesPrefix([]byte{prefixData}), nil)
	defer it.Release()
	return !it.First(), it.Error()
}

func describe(cf *schema.ColumnFamily) storedFamily {
	f := storedFamily{Keyspace: cf.Keyspace, Name: cf.Name, Type: cf.Type(), Comparator: cf.Comparator.Name()}
	if cf.SubComparator != nil {
		f.SubComparator = cf.SubComparator.Name()
	}
	return f
}

func compareFamily(stored, want storedFamily) []string {
	var out []string
	where := stored.Keyspace + "." + stored.Name
	if stored.Type != want.Type {
		out = append(out, fmt.Sprintf("column family %s was ColumnType %s and is now %s", where, stored.Type, want.Type))
		return out
	}
	if stored.Comparator != want.Comparator {
		out = append(out, fmt.Sprintf("column family %s was CompareWith %s and is now %s", where, stored.Comparator, want.Comparator))
	}
	if stored.SubComparator != want.SubComparator {
		out = append(out, fmt.Sprintf("column family %s was CompareSubcolumnsWith %s and is now %s", where, stored.SubComparator, want.SubComparator))
	}
	return out
}

func joinLines(s []string) string {
	out := ""
	for i, l := range s {
		if i > 0 {
			out += "; "
		}
		out += l
	}
	return out
}

func (st *Store) loadToken() error {
	raw, err := st.db.Get(metaToken, nil)
	if err == nil {
		st.token = dht.Token(raw)
		return nil
	}
	if err != leveldb.ErrNotFound {
		return fmt.Errorf("%s: read node token: %w", st.dir, err)
	}
	st.token = st.part.RandomToken()
	return st.db.Put(metaToken, st.token, &opt.WriteOptions{Sync: true})
}

// Token is this node's ring token: chosen at random when the store was
// created and kept since, as 0.6 kept it in system.LocationInfo.
func (st *Store) Token() dht.Token { return st.token }

// enter marks a call in flight; it fails once the store is closing, and
// while a reopen after a write failure has not succeeded.
func (st *Store) enter() error {
	st.mu.RLock()
	if st.closed {
		st.mu.RUnlock()
		return engine.ErrClosed
	}
	if st.db == nil {
		st.mu.RUnlock()
		return st.errUnavailable()
	}
	return nil
}

func (st *Store) leave() { st.mu.RUnlock() }

// Close stops the background work, waits for calls in flight, syncs and
// closes the database.
func (st *Store) Close() error {
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		return nil
	}
	st.closed = true
	st.mu.Unlock()
	close(st.stop)
	st.done.Wait()
	if st.db == nil {
		return st.errUnavailable()
	}
	err := st.db.Put(metaNewest, st.exactBound(), &opt.WriteOptions{Sync: true})
	if err == nil {
		err = st.db.Put(metaSync, nil, &opt.WriteOptions{Sync: true})
	}
	if cerr := st.db.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncLoop fsyncs the journal every SyncPeriod in Periodic mode. A synced
// write forces LevelDB to fsync its journal, which covers every write
// before it.
func (st *Store) syncLoop() {
	defer st.done.Done()
	t := time.NewTicker(st.opts.SyncPeriod)
	defer t.Stop()
	for {
		select {
		case <-st.stop:
			return
		case <-t.C:
			st.resumeWrites()
			if st.enter() != nil {
				continue
			}
			err := st.db.Put(metaSync, nil, &opt.WriteOptions{Sync: true})
			st.leave()
			if err != nil {
				st.noteWriteError(err)
				st.opts.Logger.Error("periodic commit log sync failed", "dir", st.dir, "err", err)
			}
		}
	}
}

func (st *Store) purgeLoop() {
	defer st.done.Done()
	t := time.NewTicker(st.opts.PurgeInterval)
	defer t.Stop()
	for {
		if _, err := st.Purge(context.Background()); err != nil && !errors.Is(err, engine.ErrClosed) {
			st.opts.Logger.Error("tombstone purge failed", "dir", st.dir, "err", err)
		}
		select {
		case <-st.stop:
			return
		case <-t.C:
		}
	}
}

func (st *Store) family(keyspace, cf string) (*family, error) {
	f := st.cfs[cfName{keyspace, cf}]
	if f == nil {
		return nil, fmt.Errorf("ldbstore: unknown column family %s.%s", keyspace, cf)
	}
	return f, nil
}

func (st *Store) writeOptions() *opt.WriteOptions {
	return &opt.WriteOptions{Sync: st.opts.Sync == Batch}
}
