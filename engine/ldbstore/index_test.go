package ldbstore

import (
	"testing"

	"github.com/thriftd/thriftd/engine/storetest"
)

// TestIndexConformance runs the engine.Indexer suite on LevelDB.
func TestIndexConformance(t *testing.T) {
	storetest.RunIndexes(t, reopeningHarness())
}
