package cqlstore

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/storetest"
)

// TestSlowPagesAreEachBounded walks a family of many pages on a node
// whose every answer comes late, but well within the request timeout:
// each page is a request of its own (as each of 2.1's range requests was
// bounded by range_request_timeout_in_ms), so the walk as a whole may take
// longer than one request's bound and still answer every key, where it
// answered TimedOut when the bound covered the whole walk.
func TestSlowPagesAreEachBounded(t *testing.T) {
	s := storetest.TestSchema(t, "RandomPartitioner")
	st, p := openThroughProxy(t, s, 2*time.Second)
	var muts []engine.RowMutation
	const rows = 24
	for i := 0; i < rows; i++ {
		muts = append(muts, storetest.Put("Standard1", fmt.Sprintf("k%02d", i), "a", "v", 1))
	}
	storetest.Apply(t, st, muts...)
	st.keysPerPage = 3 // 8 pages, plus the empty last one

	p.mu.Lock()
	p.slow = 400 * time.Millisecond
	p.mu.Unlock()
	start := time.Now()
	got, err := st.Range(ctx, storetest.Keyspace, engine.Bounds{}, engine.Query{ColumnFamily: "Standard1"}, 100)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("range of %d rows in pages of 3, each answer 400 ms late, request timeout 2 s: %v (after %v)", rows, err, took)
	}
	if len(got) != rows {
		t.Errorf("range: %d rows, want %d", len(got), rows)
	}
	if took < 2*time.Second {
		t.Errorf("the walk took %v: the fault did not slow it past one request's bound, so this test proves nothing", took)
	}

	// A page the node does not answer within the bound is still a timeout,
	// and says which bound ran out.
	p.mu.Lock()
	p.slow = 3 * time.Second
	p.mu.Unlock()
	_, err = st.Range(ctx, storetest.Keyspace, engine.Bounds{}, engine.Query{ColumnFamily: "Standard1"}, 100)
	var to *engine.TimedOutError
	if !errors.As(err, &to) || !errors.Is(err, engine.ErrTimedOut) {
		t.Fatalf("range on a node slower than the request timeout: %v, want an engine.TimedOutError", err)
	}
	if to.Bound != engine.BoundRequest || !strings.Contains(to.Detail, "cassandra.timeout (2s)") || !strings.Contains(to.Detail, "coordinator ") {
		t.Errorf("timeout: bound %q, detail %q; want the request bound of 2s, with the coordinator", to.Bound, to.Detail)
	}
	p.mu.Lock()
	p.slow = 0
	p.mu.Unlock()
}
