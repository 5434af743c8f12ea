package ldbstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/syndtr/goleveldb/leveldb"
	lerrors "github.com/syndtr/goleveldb/leveldb/errors"
	"github.com/syndtr/goleveldb/leveldb/storage"
)

// tableMagic ends every LevelDB table file (the footer's last 8 bytes).
const tableMagic = "\x57\xfb\x80\x8b\x24\x75\x47\xdb"

// errDamaged wraps a damage found in dir with what to do about it.
func errDamaged(dir string, err error) error {
	return fmt.Errorf("%s: the LevelDB store is damaged (%v); stop thriftd and run `thriftd -repair` with the same -config and -data to recover what is intact", dir, err)
}

// isCorrupted is lerrors.IsCorrupted through wrapping.
func isCorrupted(err error) bool {
	var c1 *lerrors.ErrCorrupted
	var c2 *storage.ErrCorrupted
	return errors.As(err, &c1) || errors.As(err, &c2)
}

// checkTables compares every table file the manifest lists with the file
// on disk: it must exist, have the recorded size and end in a table footer.
// LevelDB itself reads a table only when a lookup needs it, so without
// this a truncated or overwritten table would surface as read errors long
// after start-up. Damage inside a table's data blocks is still found only
// when read (the blocks carry checksums).
func checkTables(db *leveldb.DB, dir string) error {
	list, err := db.GetProperty("leveldb.sstables")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(list, "\n") {
		// "<file number>:<size>[<smallest key> .. <largest key>]"
		head, _, ok := strings.Cut(line, "[")
		if !ok {
			continue // a "--- level N ---" heading
		}
		numStr, sizeStr, _ := strings.Cut(head, ":")
		num, err1 := strconv.ParseInt(numStr, 10, 64)
		size, err2 := strconv.ParseInt(sizeStr, 10, 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("unexpected table list line %q", line)
		}
		if err := checkTable(dir, num, size); err != nil {
			return errDamaged(dir, err)
		}
	}
	return nil
}

func checkTable(dir string, num, size int64) error {
	name := fmt.Sprintf("%06d.ldb", num)
	f, err := os.Open(filepath.Join(dir, name))
	if os.IsNotExist(err) {
		// Stores written by the C++ LevelDB before 1.14 name tables .sst.
		name = fmt.Sprintf("%06d.sst", num)
		f, err = os.Open(filepath.Join(dir, name))
	}
	if err != nil {
		return fmt.Errorf("table %s is missing: %w", name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() != size {
		return fmt.Errorf("table %s is %d bytes, the manifest records %d", name, fi.Size(), size)
	}
	tail := make([]byte, len(tableMagic))
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil && err != io.EOF {
		return fmt.Errorf("table %s: %w", name, err)
	}
	if !bytes.Equal(tail, []byte(tableMagic)) {
		return fmt.Errorf("table %s has no valid footer", name)
	}
	return nil
}
