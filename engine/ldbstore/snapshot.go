package ldbstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/thriftd/thriftd/engine"
)

var _ engine.Snapshotter = (*Store)(nil)

// SnapshotDir is the directory, inside the data directory, that holds the
// snapshots, one subdirectory each. LevelDB ignores names it did not write.
const SnapshotDir = "snapshots"

var snapshotName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// errMoved reports that LevelDB committed a new version while the files
// were being gathered, so the gathering is redone.
var errMoved = errors.New("the store's file set changed while it was copied")

// Snapshot implements engine.Snapshotter. An empty name means the current
// time in milliseconds, as 0.6 named its snapshots.
//
// A snapshot is a directory a LevelDB store can be opened from: hard links
// to the table files (tables are never modified once written, so a link is
// a copy that costs no space), and copies of CURRENT, the manifest and the
// journals. The tables are linked first, while the store serves; then every
// call of the store is held back while the manifest and the journals are
// copied and the tables written meanwhile linked. That makes it one point
// in time: the journals hold exactly the acknowledged writes not yet in
// tables, and every table the manifest names is linked. LevelDB's
// background compaction may still commit a new version meanwhile; the
// gathering checks that the manifest and the table list did not move
// under it and starts again if they did. Links to tables the manifest does
// not name (made obsolete, or written by a compaction not yet committed)
// are harmless: LevelDB deletes them when a store is opened from the
// snapshot. Calls wait for the length of the gathering: milliseconds to
// copy the manifest and at most a memtable's worth of journal.
func (st *Store) Snapshot(ctx context.Context, name string) (engine.SnapshotInfo, error) {
	if name == "" {
		name = strconv.FormatInt(time.Now().UnixMilli(), 10)
	}
	if !snapshotName.MatchString(name) {
		return engine.SnapshotInfo{}, fmt.Errorf("snapshot name %q: use letters, digits, '_', '.' and '-' (at most 128, not starting with '.' or '-')", name)
	}
	root := filepath.Join(st.dir, SnapshotDir)
	final := filepath.Join(root, name)
	if _, err := os.Stat(final); err == nil {
		return engine.SnapshotInfo{}, fmt.Errorf("snapshot %s already exists in %s", name, root)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return engine.SnapshotInfo{}, fmt.Errorf("snapshot: %w", err)
	}
	tmp := filepath.Join(root, ".tmp-"+name)
	if err := os.RemoveAll(tmp); err != nil {
		return engine.SnapshotInfo{}, fmt.Errorf("snapshot: %w", err)
	}

	// Link the tables there now, before holding calls back: tables never
	// change, so only those written meanwhile are left for the pause.
	// A link to a table that is obsolete by then is harmless: LevelDB
	// deletes tables its manifest does not name when it opens.
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return engine.SnapshotInfo{}, fmt.Errorf("snapshot: %w", err)
	}
	if _, err := linkTables(st.dir, tmp); err != nil {
		os.RemoveAll(tmp)
		return engine.SnapshotInfo{}, fmt.Errorf("snapshot %s: %w", name, err)
	}

	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		return engine.SnapshotInfo{}, engine.ErrClosed
	}
	if st.db == nil {
		st.mu.Unlock()
		return engine.SnapshotInfo{}, st.errUnavailable()
	}
	start := time.Now()
	var err error
	for attempt := 0; attempt < 50; attempt++ {
		if err = st.gather(tmp); !errors.Is(err, errMoved) {
			break
		}
		if ctx.Err() != nil {
			break
		}
		time.Sleep(5 * time.Millisecond) // let the compaction in progress commit
	}
	paused := time.Since(start)
	st.mu.Unlock()
	if err != nil {
		os.RemoveAll(tmp)
		return engine.SnapshotInfo{}, fmt.Errorf("snapshot %s: %w", name, err)
	}
	if err := syncFiles(tmp); err != nil {
		os.RemoveAll(tmp)
		return engine.SnapshotInfo{}, fmt.Errorf("snapshot %s: %w", name, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		return engine.SnapshotInfo{}, fmt.Errorf("snapshot %s: %w", name, err)
	}
	syncDir(root)
	info, err := describeSnapshot(final)
	info.Paused = paused
	st.opts.Logger.Info("snapshot taken", "name", name, "dir", final, "files", info.Files, "bytes", info.Bytes, "paused", paused)
	return info, err
}

// gather links and copies the files of the current version into dir,
// which may hold table links already. The caller holds st.mu exclusively,
// so no write is in progress. The copies are not synced here: that is
// done after calls resume (syncFiles).
func (st *Store) gather(dir string) error {
	// Drop what an earlier attempt copied; table links stay valid.
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if _, kind := fileKind(e.Name()); kind != "table" {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	manifest, size, tables, err := st.version()
	if err != nil {
		return err
	}
	if err := copyFile(filepath.Join(st.dir, manifest), filepath.Join(dir, manifest), size); err != nil {
		if os.IsNotExist(err) {
			return errMoved
		}
		return err
	}
	linked, err := linkTables(st.dir, dir)
	if err != nil {
		return err
	}
	if entries, err = os.ReadDir(st.dir); err != nil {
		return err
	}
	for _, e := range entries {
		if _, kind := fileKind(e.Name()); kind == "journal" {
			err := copyFile(filepath.Join(st.dir, e.Name()), filepath.Join(dir, e.Name()), -1)
			if err != nil && !os.IsNotExist(err) {
				return err // a journal gone meanwhile was flushed: the check below sees it
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "CURRENT"), []byte(manifest+"\n"), 0o644); err != nil {
		return err
	}
	manifest2, size2, tables2, err := st.version()
	if err != nil {
		return err
	}
	if manifest2 != manifest || size2 != size || !equalInts(tables, tables2) {
		return errMoved
	}
	for _, n := range tables {
		if !linked[n] {
			return errMoved
		}
	}
	return nil
}

// linkTables hard-links into dst every table file of src that dst lacks,
// and returns the numbers of the tables dst holds. A table deleted
// meanwhile is skipped.
func linkTables(src, dst string) (map[int64]bool, error) {
	entries, err := os.ReadDir(src)
	if err != nil {
		return nil, err
	}
	linked := map[int64]bool{}
	for _, e := range entries {
		num, kind := fileKind(e.Name())
		if kind != "table" {
			continue
		}
		err := os.Link(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()))
		switch {
		case err == nil, os.IsExist(err):
			linked[num] = true
		case os.IsNotExist(err):
		default:
			return nil, err
		}
	}
	return linked, nil
}

// syncFiles makes the copies in dir and dir itself durable. Table links
// share the store's files, which LevelDB synced when it wrote them.
func syncFiles(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if _, kind := fileKind(e.Name()); kind == "table" {
			continue
		}
		f, err := os.OpenFile(filepath.Join(dir, e.Name()), os.O_RDWR, 0)
		if err != nil {
			return err
		}
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return syncDir(dir)
}

// version is the current manifest file, its length and the table numbers
// of the current version.
func (st *Store) version() (manifest string, size int64, tables []int64, err error) {
	cur, err := os.ReadFile(filepath.Join(st.dir, "CURRENT"))
	if err != nil {
		return "", 0, nil, err
	}
	manifest = strings.TrimSpace(string(cur))
	fi, err := os.Stat(filepath.Join(st.dir, manifest))
	if err != nil {
		if os.IsNotExist(err) {
			return "", 0, nil, errMoved
		}
		return "", 0, nil, err
	}
	list, err := st.db.GetProperty("leveldb.sstables")
	if err != nil {
		return "", 0, nil, err
	}
	for _, line := range strings.Split(list, "\n") {
		head, _, ok := strings.Cut(line, "[")
		if !ok {
			continue
		}
		numStr, _, _ := strings.Cut(head, ":")
		n, err := strconv.ParseInt(numStr, 10, 64)
		if err != nil {
			return "", 0, nil, fmt.Errorf("unexpected table list line %q", line)
		}
		tables = append(tables, n)
	}
	sort.Slice(tables, func(i, j int) bool { return tables[i] < tables[j] })
	return manifest, fi.Size(), tables, nil
}

// fileKind classifies a LevelDB file name: "table" (000123.ldb, or .sst
// from the C++ LevelDB) or "journal" (000123.log), with its number.
func fileKind(name string) (int64, string) {
	base, ext, ok := strings.Cut(name, ".")
	if !ok {
		return 0, ""
	}
	n, err := strconv.ParseInt(base, 10, 64)
	if err != nil {
		return 0, ""
	}
	switch ext {
	case "ldb", "sst":
		return n, "table"
	case "log":
		return n, "journal"
	}
	return 0, ""
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// copyFile copies src to dst; n >= 0 copies only the first n bytes (a
// manifest's length when its version was read).
func copyFile(src, dst string, n int64) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	var r io.Reader = in
	if n >= 0 {
		r = io.LimitReader(in, n)
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func describeSnapshot(dir string) (engine.SnapshotInfo, error) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	info := engine.SnapshotInfo{Name: filepath.Base(dir), Dir: dir}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return info, err
	}
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			return info, err
		}
		info.Files++
		info.Bytes += fi.Size()
		if fi.ModTime().After(info.Created) && e.Name() == "CURRENT" {
			info.Created = fi.ModTime()
		}
	}
	return info, nil
}

// Snapshots implements engine.Snapshotter.
func (st *Store) Snapshots() ([]engine.SnapshotInfo, error) {
	root := filepath.Join(st.dir, SnapshotDir)
	entries, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []engine.SnapshotInfo
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		info, err := describeSnapshot(filepath.Join(root, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	return out, nil
}

// ClearSnapshot implements engine.Snapshotter. With an empty name it also
// removes what an interrupted snapshot left behind.
func (st *Store) ClearSnapshot(name string) ([]string, error) {
	root := filepath.Join(st.dir, SnapshotDir)
	if name != "" {
		if !snapshotName.MatchString(name) {
			return nil, fmt.Errorf("snapshot name %q is not valid", name)
		}
		dir := filepath.Join(root, name)
		if _, err := os.Stat(dir); err != nil {
			return nil, fmt.Errorf("no snapshot %s in %s", name, root)
		}
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
		st.opts.Logger.Info("snapshot removed", "name", name, "dir", dir)
		return []string{name}, nil
	}
	entries, err := os.ReadDir(root)
	if os.IsNotExist(err) {
		return []string{}, nil
	}
	if err != nil {
		return nil, err
	}
	removed := []string{}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
			return removed, err
		}
		if !strings.HasPrefix(e.Name(), ".") {
			removed = append(removed, e.Name())
		}
	}
	st.opts.Logger.Info("snapshots removed", "names", removed, "dir", root)
	return removed, nil
}
