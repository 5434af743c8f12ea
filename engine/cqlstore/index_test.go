package cqlstore

import (
	"testing"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
	"github.com/thriftd/thriftd/schema"
)

// TestIndexConformance runs the engine.Indexer suite on a real node: the
// store's indexes are Cassandra's own.
func TestIndexConformance(t *testing.T) {
	storetest.RunIndexes(t, storetest.Harness{
		Open: func(t *testing.T, s *schema.Schema) engine.Store {
			st, _ := openFresh(t, s, 864000)
			return st
		},
		Reopen: func(t *testing.T, st engine.Store, s *schema.Schema) engine.Store {
			o := st.(*Store).opts
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			return openAnother(t, s, o)
		},
	})
}
