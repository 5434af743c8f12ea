package ldbstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
)

// After a failed write (typically: the disk is full) goleveldb refuses every
// later write of the same DB, because its journal writer keeps the first
// error. The store therefore notes the failure, and once space is back
// reopens the database, which replays the journal up to its last whole
// record and starts a new one. Reads go on meanwhile.

// retryInterval is how often a failed store checks whether writes can
// resume.
const retryInterval = time.Second

// noteWriteError records that a write to LevelDB failed, unless the store
// is merely closing or the failure is damage, which a reopen cannot cure.
func (st *Store) noteWriteError(err error) {
	if err == nil || errors.Is(err, leveldb.ErrClosed) || isCorrupted(err) {
		return
	}
	if st.failed.CompareAndSwap(false, true) {
		st.opts.Logger.Error("writes fail until the cause is fixed (a full disk?); thriftd retries every second", "dir", st.dir, "err", err)
	}
}

// resumeWrites reopens the database after a write failure, once a probe
// shows that the disk takes as much data as reopening will write. It costs
// nothing while writes succeed, and runs at most once per retryInterval.
func (st *Store) resumeWrites() {
	if !st.failed.Load() {
		return
	}
	now := time.Now().UnixNano()
	last := st.lastRetry.Load()
	if now-last < int64(retryInterval) || !st.lastRetry.CompareAndSwap(last, now) {
		return
	}
	if err := st.probeSpace(); err != nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed || !st.failed.Load() {
		return
	}
	if st.db != nil {
		st.db.Close() // its error is the write failure already reported
		st.db = nil
	}
	db, err := openLevelDB(st.dir, st.opts)
	if err != nil {
		// Reads fail too until a later retry succeeds.
		st.opts.Logger.Error("reopening the store after a write failure failed; retrying", "dir", st.dir, "err", err)
		return
	}
	st.db = db
	st.failed.Store(false)
	st.opts.Logger.Info("writes resumed: the store was reopened after a write failure", "dir", st.dir)
}

// probeSpace writes and removes a file as large as the journals that a
// reopen turns into a table, plus a margin, and syncs it.
func (st *Store) probeSpace() error {
	need := int64(1 << 20)
	logs, _ := filepath.Glob(filepath.Join(st.dir, "*.log"))
	for _, l := range logs {
		if fi, err := os.Stat(l); err == nil {
			need += fi.Size()
		}
	}
	path := filepath.Join(st.dir, "space-probe.tmp")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer os.Remove(path)
	defer f.Close()
	buf := make([]byte, 64<<10)
	for written := int64(0); written < need; written += int64(len(buf)) {
		if _, err := f.Write(buf); err != nil {
			return err
		}
	}
	return f.Sync()
}

// errUnavailable is returned while the database is closed for a reopen
// that has not succeeded yet.
func (st *Store) errUnavailable() error {
	return fmt.Errorf("%s: the store is unavailable until it can be reopened after a write failure", st.dir)
}
