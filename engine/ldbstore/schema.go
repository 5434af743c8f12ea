package ldbstore

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/schema"
)

// Schema changes at run time (engine.SchemaStore) and truncate
// (engine.Truncater).
//
// The catalog's encoding of the schema is kept under its own meta key,
// written in one synced batch with the store's own record of its column
// families (metaSchema), so that the two never disagree after a crash.
//
// Every column family's data lives under a 4-byte id that is never used
// twice. A new column family, and a truncated one, get a fresh id; the id
// of a dropped or truncated family goes to the stored list of ids whose
// data is left to delete, and a background worker deletes it, in batches,
// and resumes after a restart. Reads never see that data again, since no
// served family has its id, so a re-created family of the same name is
// empty, and writes made after a truncation are kept whatever their
// timestamps.
//
// A change swaps the served families under the store's call lock: it
// waits for the calls in flight, and no call sees half a change.

var (
	metaCatalog = []byte{prefixMeta, 'c', 'a', 't', 'a', 'l', 'o', 'g'}
)

// deleteBatch is how many keys of a dropped family one batch deletes.
const deleteBatch = 10000

var (
	_ engine.SchemaStore = (*Store)(nil)
	_ engine.Truncater   = (*Store)(nil)
)

// schemaState serializes schema changes, truncations and the deletion of
// dropped data, which all rewrite metaSchema.
type schemaState struct {
	mu   sync.Mutex
	kick chan struct{}
}

// resolveSchema is the schema Open serves: Options.Schema's answer for
// the recorded catalog when set, else s.
func (st *Store) resolveSchema(s *schema.Schema) (*schema.Schema, error) {
	st.sch.kick = make(chan struct{}, 1)
	if st.opts.Schema == nil {
		return s, nil
	}
	raw, err := st.db.Get(metaCatalog, nil)
	switch {
	case err == leveldb.ErrNotFound:
		raw = nil
	case err != nil:
		return nil, fmt.Errorf("%s: read recorded schema: %w", st.dir, err)
	}
	next, err := st.opts.Schema(raw)
	if err != nil {
		return nil, err
	}
	if next.Partitioner == nil || next.Partitioner.Name() != s.Partitioner.Name() {
		return nil, fmt.Errorf("%s: the recorded schema's partitioner is not the configuration's %s", st.dir, s.Partitioner.Name())
	}
	return next, nil
}

// startSchemaWork starts the worker that deletes dropped data, and sets
// it going if a previous run left some.
func (st *Store) startSchemaWork() {
	st.done.Add(1)
	go st.dropLoop()
	st.kickDrops()
	st.syncIndexes()
}

func (st *Store) kickDrops() {
	select {
	case st.sch.kick <- struct{}{}:
	default:
	}
}

// StoredSchema implements engine.SchemaStore.
func (st *Store) StoredSchema(ctx context.Context) ([]byte, error) {
	if err := st.enter(); err != nil {
		return nil, err
	}
	defer st.leave()
	raw, err := st.db.Get(metaCatalog, nil)
	if err == leveldb.ErrNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: read recorded schema: %w", st.dir, err)
	}
	return raw, nil
}

// SchemaVersions implements engine.SchemaStore: one node, this one, under
// Options.NodeAddress.
func (st *Store) SchemaVersions(ctx context.Context) (map[string][]string, error) {
	stored, err := st.readStored()
	if err != nil {
		return nil, err
	}
	node := st.opts.NodeAddress
	if node == "" {
		node = "127.0.0.1"
	}
	return map[string][]string{stored.Version: {node}}, nil
}

// readStored reads metaSchema.
func (st *Store) readStored() (storedSchema, error) {
	if err := st.enter(); err != nil {
		return storedSchema{}, err
	}
	defer st.leave()
	var stored storedSchema
	raw, err := st.db.Get(metaSchema, nil)
	if err != nil {
		return stored, fmt.Errorf("%s: read stored schema: %w", st.dir, err)
	}
	if err := json.Unmarshal(raw, &stored); err != nil {
		return stored, fmt.Errorf("%s: stored schema is unreadable: %w", st.dir, err)
	}
	return stored, nil
}

// nextID is the first id no column family, live or dropped, ever had.
func nextID(stored *storedSchema) uint32 {
	n := max(stored.NextID, 1)
	for _, f := range stored.ColumnFamilies {
		n = max(n, f.ID+1)
	}
	for _, id := range stored.Dropped {
		n = max(n, id+1)
	}
	return n
}

// ChangeSchema implements engine.SchemaStore.
func (st *Store) ChangeSchema(ctx context.Context, next *schema.Schema, encoded []byte) error {
	if next.Partitioner == nil || next.Partitioner.Name() != st.part.Name() {
		return fmt.Errorf("ldbstore: a schema change cannot change the partitioner of %s", st.dir)
	}
	defer st.syncIndexes()
	// A family dropped and created again under its name starts empty.
	defer st.counters.invalidateCounters()
	return st.rewrite(func(stored *storedSchema, cfs map[cfName]*family, byID map[uint32]*family) (map[cfName]*family, map[uint32]*family, error) {
		index := map[cfName]int{}
		for i, f := range stored.ColumnFamilies {
			index[cfName{f.Keyspace, f.Name}] = i
		}
		id := nextID(stored)
		newCfs, newByID := map[cfName]*family{}, map[uint32]*family{}
		drop := map[cfName]bool{}
		for _, ksName := range next.KeyspaceNames() {
			for _, def := range next.Keyspaces[ksName].ColumnFamilies {
				name := cfName{ksName, def.Name}
				want := describe(def)
				if old := cfs[name]; old != nil {
					i := index[name]
					if d := compareFamily(stored.ColumnFamilies[i], want); len(d) > 0 {
						return nil, nil, fmt.Errorf("ldbstore: %s; stored names would be misread", joinLines(d))
					}
					fam := &family{def: def, prefix: old.prefix}
					newCfs[name], newByID[stored.ColumnFamilies[i].ID] = fam, fam
					continue
				}
				if _, ok := index[name]; ok {
					// Data of an earlier family of that name that the
					// configuration no longer named: the new one starts
					// empty.
					drop[name] = true
				}
				want.ID = id
				id++
				stored.ColumnFamilies = append(stored.ColumnFamilies, want)
				fam := &family{def: def, prefix: cfPrefix(want.ID)}
				newCfs[name], newByID[want.ID] = fam, fam
				st.opts.Logger.Info("new column family", "keyspace", ksName, "column_family", def.Name, "id", want.ID)
			}
		}
		for name := range cfs {
			if newCfs[name] == nil {
				drop[name] = true
			}
		}
		kept := stored.ColumnFamilies[:0]
		for i, f := range stored.ColumnFamilies {
			name := cfName{f.Keyspace, f.Name}
			if drop[name] && index[name] == i {
				stored.Dropped = append(stored.Dropped, f.ID)
				st.opts.Logger.Info("column family dropped; its data is deleted in the background", "keyspace", f.Keyspace, "column_family", f.Name, "id", f.ID)
				continue
			}
			kept = append(kept, f)
		}
		stored.ColumnFamilies = kept
		stored.NextID = id
		stored.Version = next.Version
		return newCfs, newByID, nil
	}, encoded)
}

// Truncate implements engine.Truncater: the family moves to a fresh id,
// and its old data is deleted in the background.
func (st *Store) Truncate(ctx context.Context, keyspace, columnFamily string) error {
	defer st.syncIndexes()
	defer st.counters.invalidateCounters()
	return st.rewrite(func(stored *storedSchema, cfs map[cfName]*family, byID map[uint32]*family) (map[cfName]*family, map[uint32]*family, error) {
		name := cfName{keyspace, columnFamily}
		old := cfs[name]
		if old == nil {
			return nil, nil, fmt.Errorf("ldbstore: unknown column family %s.%s", keyspace, columnFamily)
		}
		id := nextID(stored)
		for i := range stored.ColumnFamilies {
			f := &stored.ColumnFamilies[i]
			if f.Keyspace == keyspace && f.Name == columnFamily {
				stored.Dropped = append(stored.Dropped, f.ID)
				f.ID = id
			}
		}
		stored.NextID = id + 1
		newCfs, newByID := map[cfName]*family{}, map[uint32]*family{}
		for n, f := range cfs {
			if n == name {
				f = &family{def: old.def, prefix: cfPrefix(id)}
			}
			newCfs[n] = f
			newByID[binary.BigEndian.Uint32(f.prefix[1:])] = f
		}
		st.opts.Logger.Info("column family truncated", "keyspace", keyspace, "column_family", columnFamily, "id", id)
		return newCfs, newByID, nil
	}, nil)
}

// rewrite runs one change of the served families: change edits stored
// and returns the families to serve; metaSchema (and metaCatalog, when
// encoded is not nil) are written in one synced batch, and the families
// swapped, while no call is in flight.
func (st *Store) rewrite(change func(stored *storedSchema, cfs map[cfName]*family, byID map[uint32]*family) (map[cfName]*family, map[uint32]*family, error), encoded []byte) error {
	st.sch.mu.Lock()
	defer st.sch.mu.Unlock()
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return engine.ErrClosed
	}
	if st.db == nil {
		return st.errUnavailable()
	}
	var stored storedSchema
	raw, err := st.db.Get(metaSchema, nil)
	if err != nil {
		return fmt.Errorf("%s: read stored schema: %w", st.dir, err)
	}
	if err := json.Unmarshal(raw, &stored); err != nil {
		return fmt.Errorf("%s: stored schema is unreadable: %w", st.dir, err)
	}
	cfs, byID, err := change(&stored, st.cfs, st.byID)
	if err != nil {
		return err
	}
	raw, err = json.Marshal(stored)
	if err != nil {
		return err
	}
	batch := new(leveldb.Batch)
	batch.Put(metaSchema, raw)
	if encoded != nil {
		batch.Put(metaCatalog, encoded)
	}
	if err := st.db.Write(batch, &opt.WriteOptions{Sync: true}); err != nil {
		st.noteWriteError(err)
		return fmt.Errorf("%s: record the schema: %w", st.dir, err)
	}
	st.cfs, st.byID = cfs, byID
	if len(stored.Dropped) > 0 {
		st.kickDrops()
	}
	return nil
}

// dropLoop deletes the data of dropped and truncated families, one id at
// a time, until none is left; a restart resumes it.
func (st *Store) dropLoop() {
	defer st.done.Done()
	for {
		select {
		case <-st.stop:
			return
		case <-st.sch.kick:
		}
		for {
			more, err := st.deleteOneDropped()
			if err != nil {
				if !errors.Is(err, engine.ErrClosed) {
					st.opts.Logger.Error("deleting a dropped column family's data failed; retried at the next change or restart", "dir", st.dir, "err", err)
				}
				break
			}
			if !more {
				break
			}
		}
	}
}

// deleteOneDropped deletes the data of the first dropped id, then takes
// it off the list; it reports whether ids are left.
func (st *Store) deleteOneDropped() (bool, error) {
	stored, err := st.readStored()
	if err != nil || len(stored.Dropped) == 0 {
		return false, err
	}
	id := stored.Dropped[0]
	prefix := cfPrefix(id)
	// The rows, then their heads: a head left without its row is skipped
	// by scans.
	for _, p := range [][]byte{prefix, headRow(nil, prefix)} {
		for {
			select {
			case <-st.stop:
				return false, engine.ErrClosed
			default:
			}
			n, err := st.deleteSome(p)
			if err != nil {
				return false, err
			}
			if n < deleteBatch {
				break
			}
		}
	}
	st.sch.mu.Lock()
	defer st.sch.mu.Unlock()
	if err := st.enter(); err != nil {
		return false, err
	}
	defer st.leave()
	var now storedSchema
	raw, err := st.db.Get(metaSchema, nil)
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(raw, &now); err != nil {
		return false, err
	}
	now.NextID = nextID(&now) // before id leaves the list: never reused
	left := now.Dropped[:0]
	for _, d := range now.Dropped {
		if d != id {
			left = append(left, d)
		}
	}
	now.Dropped = left
	if raw, err = json.Marshal(now); err != nil {
		return false, err
	}
	if err := st.db.Put(metaSchema, raw, &opt.WriteOptions{Sync: true}); err != nil {
		return false, err
	}
	// Give the space back now rather than at LevelDB's next compaction.
	for _, p := range [][]byte{prefix, headRow(nil, prefix)} {
		if err := st.db.CompactRange(*util.BytesPrefix(p)); err != nil {
			st.opts.Logger.Warn("compacting a dropped column family's range failed", "dir", st.dir, "err", err)
		}
	}
	st.opts.Logger.Info("dropped column family data deleted", "dir", st.dir, "id", id)
	return len(left) > 0, nil
}

// deleteSome deletes up to deleteBatch keys under prefix and returns how
// many it deleted.
func (st *Store) deleteSome(prefix []byte) (int, error) {
	if err := st.enter(); err != nil {
		return 0, err
	}
	defer st.leave()
	it := st.db.NewIterator(util.BytesPrefix(prefix), nil)
	defer it.Release()
	batch := new(leveldb.Batch)
	n := 0
	for n < deleteBatch && it.Next() {
		batch.Delete(clone(it.Key()))
		n++
	}
	if err := it.Error(); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil
	}
	if err := st.db.Write(batch, nil); err != nil {
		st.noteWriteError(err)
		return 0, err
	}
	return n, nil
}
