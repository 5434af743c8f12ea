package ldbstore

import (
	"testing"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/schema"
)

// TestIndexConformance runs the engine.Indexer suite on LevelDB.
func TestIndexConformance(t *testing.T) {
	dirs := map[engine.Store]string{}
	storetest.RunIndexes(t, storetest.Harness{
		Open: func(t *testing.T, s *schema.Schema) engine.Store {
			dir := t.TempDir()
			st := open(t, dir, s, Options{})
			dirs[st] = dir
			t.Cleanup(func() { st.Close() })
			return st
		},
		Reopen: func(t *testing.T, old engine.Store, s *schema.Schema) engine.Store {
			dir := dirs[old]
			if err := old.Close(); err != nil {
				t.Fatal(err)
			}
			st := open(t, dir, s, Options{})
			dirs[st] = dir
			t.Cleanup(func() { st.Close() })
			return st
		},
		AtomicCalls: true,
	})
}
