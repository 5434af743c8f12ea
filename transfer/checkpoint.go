package transfer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Checkpoint is the resume state of one transfer, stored as JSON.
type Checkpoint struct {
	// Command is export, import or copy; Keyspace and Source say what was
	// being transferred, so that a checkpoint is not applied to another
	// transfer.
	Command  string `json:"command"`
	Keyspace string `json:"keyspace"`
	Source   string `json:"source"`
	// Families holds the state of each column family started.
	Families map[string]*Position `json:"column_families"`
}

// Position is how far a column family got.
type Position struct {
	// Done: every row was transferred.
	Done bool `json:"done"`
	// Rows is the number of rows completed, in the source's order;
	// LastKey the last of them.
	Rows    int64  `json:"rows"`
	LastKey string `json:"last_key"`
	// Offset is, for an export, the size of the file holding those rows.
	Offset int64 `json:"offset,omitempty"`
	// Columns and Bytes completed, for the summary.
	Columns int64 `json:"columns"`
	Bytes   int64 `json:"bytes"`
}

// checkpointer keeps a Checkpoint and writes it to its file.
type checkpointer struct {
	path string
	mu   sync.Mutex
	cp   Checkpoint
	// saveMu orders saves, so that the last snapshot taken is the last
	// one written.
	saveMu sync.Mutex
}

// openCheckpoint starts the checkpoint of a transfer: the one in path when
// resume is set (it must match command, keyspace and source), else an
// empty one. An empty path keeps the state in memory only.
func openCheckpoint(path string, resume bool, command, keyspace, source string) (*checkpointer, error) {
	c := &checkpointer{path: path, cp: Checkpoint{Command: command, Keyspace: keyspace, Source: source, Families: map[string]*Position{}}}
	if !resume {
		return c, nil
	}
	if path == "" {
		return nil, errors.New("resuming needs a checkpoint file")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the checkpoint to resume from: %w", err)
	}
	var cp Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		return nil, fmt.Errorf("checkpoint %s is damaged: %w", path, err)
	}
	if cp.Command != command || cp.Keyspace != keyspace || cp.Source != source {
		return nil, fmt.Errorf("checkpoint %s is of %s of keyspace %s from %s, not of %s of keyspace %s from %s",
			path, cp.Command, cp.Keyspace, cp.Source, command, keyspace, source)
	}
	if cp.Families == nil {
		cp.Families = map[string]*Position{}
	}
	c.cp = cp
	return c, nil
}

// get returns a copy of the position of cf (zero if not started).
func (c *checkpointer) get(cf string) Position {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.cp.Families[cf]; p != nil {
		return *p
	}
	return Position{}
}

// set records the position of cf.
func (c *checkpointer) set(cf string, p Position) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cp.Families[cf] = &p
}

// save writes the checkpoint atomically (a temporary file renamed over
// it, fsynced), so a crash leaves the old or the new one.
func (c *checkpointer) save() error {
	if c.path == "" {
		return nil
	}
	c.saveMu.Lock()
	defer c.saveMu.Unlock()
	c.mu.Lock()
	b, err := json.MarshalIndent(&c.cp, "", "  ")
	c.mu.Unlock()
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), filepath.Base(c.path)+".tmp*")
	if err != nil {
		return fmt.Errorf("writing checkpoint: %w", err)
	}
	_, err = tmp.Write(append(b, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing checkpoint %s: %w", c.path, err)
	}
	return nil
}

// remove deletes the checkpoint file once the transfer is complete.
func (c *checkpointer) remove() error {
	if c.path == "" {
		return nil
	}
	if err := os.Remove(c.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
