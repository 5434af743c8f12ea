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

// TestSlowPagesAreEachBounded reads a family of many pages on a node
// whose every answer comes late, but well within the request timeout:
// each page is a request of its own (as each of 2.1's range requests was
// bounded by range_request_timeout_in_ms), so the read as a whole may take
// longer than one request's bound and still answer every row, where it
// answered TimedOut when the bound covered the whole read. It does so for
// each paged read: a range of whole rows (one scan), a range from a start
// column (a walk of keys, then the rows by key) and a multiget.
func TestSlowPagesAreEachBounded(t *testing.T) {
	s := storetest.TestSchema(t, "RandomPartitioner")
	st, p := openThroughProxy(t, s, 2*time.Second)
	var muts []engine.RowMutation
	var keys []string
	const rows = 24
	for i := 0; i < rows; i++ {
		k := fmt.Sprintf("k%02d", i)
		keys = append(keys, k)
		muts = append(muts, storetest.Put("Standard1", k, "a", "v", 1))
	}
	storetest.Apply(t, st, muts...)
	st.rowsPerPage = 3 // 8 pages, plus the empty last one
	slow := func(d time.Duration) {
		p.mu.Lock()
		p.slow = d
		p.mu.Unlock()
	}
	defer slow(0)
	whole := engine.Query{ColumnFamily: "Standard1", Predicate: storetest.All(100)}
	fromA := engine.Query{ColumnFamily: "Standard1", Predicate: engine.Predicate{Start: []byte("a"), Count: 100}}
	reads := []struct {
		name string
		read func() (int, error)
	}{
		{"range of whole rows", func() (int, error) {
			got, err := st.Range(ctx, storetest.Keyspace, engine.TokenRange{}, whole, 100)
			return len(got), err
		}},
		{"range from a start column", func() (int, error) {
			got, err := st.Range(ctx, storetest.Keyspace, engine.TokenRange{}, fromA, 100)
			return len(got), err
		}},
		{"multiget", func() (int, error) {
			got, err := st.GetMany(ctx, storetest.Keyspace, keys, whole)
			n := 0
			for _, r := range got {
				if len(r.Columns) == 1 {
					n++
				}
			}
			return n, err
		}},
	}
	for _, r := range reads {
		slow(400 * time.Millisecond)
		start := time.Now()
		n, err := r.read()
		took := time.Since(start)
		if err != nil {
			t.Fatalf("%s: %d rows in pages of 3, each answer 400 ms late, request timeout 2 s: %v (after %v)", r.name, rows, err, took)
		}
		if n != rows {
			t.Errorf("%s: %d rows, want %d", r.name, n, rows)
		}
		if took < 2*time.Second {
			t.Errorf("%s took %v: the fault did not slow it past one request's bound, so this proves nothing", r.name, took)
		}

		// A page the node does not answer within the bound is still a
		// timeout, and says which bound ran out.
		slow(3 * time.Second)
		_, err = r.read()
		var to *engine.TimedOutError
		if !errors.As(err, &to) || !errors.Is(err, engine.ErrTimedOut) {
			t.Fatalf("%s on a node slower than the request timeout: %v, want an engine.TimedOutError", r.name, err)
		}
		if to.Source != engine.TimeoutRequest || !strings.Contains(to.Detail, "cassandra.timeout (2s)") || !strings.Contains(to.Detail, "coordinator ") {
			t.Errorf("%s: timeout bound %q, detail %q; want the request bound of 2s, with the coordinator", r.name, to.Source, to.Detail)
		}
		// The proxy hands answers on in order: let the late one pass
		// before the next read.
		slow(0)
		time.Sleep(3500 * time.Millisecond)
	}
}
