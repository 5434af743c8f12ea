package migrate

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
)

// Entry is one target write that failed: the 19.x call, the keyspace of
// the connection that made it, and its arguments as the Thrift binary
// protocol encodes the generated Args struct (args.go).
type Entry struct {
	Method   string `json:"method"`
	Keyspace string `json:"keyspace"`
	Args     []byte `json:"args"`
}

// Pending is the durable log of target writes that failed: a file of
// records, each a 4-byte length, a CRC-32 (Castagnoli) of the body and
// the body (an Entry as JSON). Append fsyncs before it returns, so a write
// acknowledged to the client is on the target or in this file. A torn
// last record (a crash during Append) is dropped at open with a warning:
// its write was never acknowledged.
//
// Replay removes what the target took; entries keep their order.
type Pending struct {
	path string
	log  *slog.Logger

	mu sync.Mutex
	f  *os.File
	n  int
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// OpenPending opens (or creates) the log at path.
func OpenPending(path string, log *slog.Logger) (*Pending, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("migration log: %w", err)
	}
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("migration log: %w", err)
	}
	entries, good := decodeEntries(b)
	p := &Pending{path: path, log: log, n: len(entries)}
	if good < len(b) {
		log.Warn("migration log: dropped a torn record at its end (a write interrupted by a crash, never acknowledged)",
			"file", path, "offset", good, "bytes", len(b)-good)
		if err := p.rewrite(entries); err != nil {
			return nil, err
		}
	}
	if p.f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err != nil {
		return nil, fmt.Errorf("migration log: %w", err)
	}
	return p, nil
}

// Len is the number of writes the log holds.
func (p *Pending) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.n
}

// Append records e durably.
func (p *Pending) Append(e Entry) error {
	rec, err := encodeEntry(e)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f == nil {
		return errors.New("migration log is closed")
	}
	if _, err := p.f.Write(rec); err != nil {
		return fmt.Errorf("migration log %s: %w", p.path, err)
	}
	if err := p.f.Sync(); err != nil {
		return fmt.Errorf("migration log %s: %w", p.path, err)
	}
	p.n++
	return nil
}

// Replay applies the logged writes in order, removes those the target
// took and returns how many; err is the first failure. A write that fails
// stays in the log and the next ones are still tried (timestamps, not
// order, decide between writes), except after a failed truncate, which
// must not wipe writes that came after it: the replay stops there. Appends
// may go on meanwhile; Replay is not called concurrently with itself.
func (p *Pending) Replay(apply func(Entry) error) (int, error) {
	p.mu.Lock()
	b, err := os.ReadFile(p.path)
	p.mu.Unlock()
	if err != nil {
		return 0, fmt.Errorf("migration log: %w", err)
	}
	entries, _ := decodeEntries(b)
	var keep []Entry
	var firstErr error
	for i, e := range entries {
		err := apply(e)
		if err == nil {
			continue
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("%s in keyspace %s: %w", e.Method, e.Keyspace, err)
		}
		if e.Method == "truncate" {
			keep = append(keep, entries[i:]...)
			break
		}
		keep = append(keep, e)
	}
	done := len(entries) - len(keep)
	if done == 0 {
		return 0, firstErr
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	b, err = os.ReadFile(p.path)
	if err != nil {
		return 0, fmt.Errorf("migration log: %w", err)
	}
	all, _ := decodeEntries(b)
	if err := p.f.Close(); err != nil {
		return 0, fmt.Errorf("migration log: %w", err)
	}
	p.f = nil
	// all begins with entries: only Replay removes records.
	if err := p.rewrite(append(keep, all[len(entries):]...)); err != nil {
		return 0, err
	}
	if p.f, err = os.OpenFile(p.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600); err != nil {
		return 0, fmt.Errorf("migration log: %w", err)
	}
	p.n = len(all) - done
	return done, firstErr
}

// Close closes the file; what it holds is replayed at the next open.
func (p *Pending) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f == nil {
		return nil
	}
	err := p.f.Close()
	p.f = nil
	return err
}

// rewrite replaces the file with entries, atomically (a new file renamed
// over it, both fsync'ed).
func (p *Pending) rewrite(entries []Entry) error {
	var buf bytes.Buffer
	for _, e := range entries {
		rec, err := encodeEntry(e)
		if err != nil {
			return err
		}
		buf.Write(rec)
	}
	tmp := p.path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("migration log: %w", err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("migration log: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("migration log: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("migration log: %w", err)
	}
	if err := os.Rename(tmp, p.path); err != nil {
		return fmt.Errorf("migration log: %w", err)
	}
	if d, err := os.Open(filepath.Dir(p.path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

func encodeEntry(e Entry) ([]byte, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	rec := make([]byte, 8, 8+len(body))
	binary.BigEndian.PutUint32(rec, uint32(len(body)))
	binary.BigEndian.PutUint32(rec[4:], crc32.Checksum(body, castagnoli))
	return append(rec, body...), nil
}

// decodeEntries returns the whole records of b and the length they
// cover; what follows is a torn or corrupt tail.
func decodeEntries(b []byte) ([]Entry, int) {
	var out []Entry
	off := 0
	for {
		rest := b[off:]
		if len(rest) < 8 {
			return out, off
		}
		n := int(binary.BigEndian.Uint32(rest))
		if n > len(rest)-8 {
			return out, off
		}
		body := rest[8 : 8+n]
		if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(rest[4:]) {
			return out, off
		}
		var e Entry
		if err := json.Unmarshal(body, &e); err != nil {
			return out, off
		}
		out = append(out, e)
		off += 8 + n
	}
}
