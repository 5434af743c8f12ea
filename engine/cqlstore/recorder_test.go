package cqlstore

import (
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// The recorder reads the page size and page state the driver keeps
// unexported: a driver that renamed them would make it report -1.
func TestRecorderReadsPaging(t *testing.T) {
	q := new(gocql.Query).PageSize(77).PageState([]byte{1, 2})
	size, state := queryPaging(q)
	if size != 77 || string(state) != "\x01\x02" {
		t.Fatalf("queryPaging = %d, %v; want 77, [1 2]", size, state)
	}
	if size, state := queryPaging(new(gocql.Query)); size != 0 || state != nil {
		t.Fatalf("queryPaging of a fresh query = %d, %v; want 0, nil", size, state)
	}
}

// One entry per distinct request: first attempts counted, the driver's
// further pages and retries apart, values kept up to the sample count,
// and the requests in flight at once.
func TestRecorderCounts(t *testing.T) {
	st := &Store{metrics: newMetrics()}
	h := st.DebugHandler()
	do := func(path string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, path, nil))
		return w
	}
	if w := do("/statements/stop"); w.Code != http.StatusConflict {
		t.Fatalf("stop before start: %d", w.Code)
	}
	if w := do("/statements/start?samples=2"); w.Code != http.StatusNoContent {
		t.Fatalf("start: %d %s", w.Code, w.Body)
	}
	t0 := time.Now()
	q1 := new(gocql.Query).PageSize(100).Consistency(gocql.One)
	q2 := new(gocql.Query).PageSize(100).Consistency(gocql.One)
	q3 := new(gocql.Query).PageSize(100).Consistency(gocql.One)
	stmt := "SELECT column1 FROM t WHERE key = ?"
	obs := func(q *gocql.Query, attempt int, start, end time.Duration, v ...any) {
		st.metrics.ObserveQuery(t.Context(), gocql.ObservedQuery{Statement: stmt, Values: v, Query: q, Attempt: attempt,
			Start: t0.Add(start), End: t0.Add(end)})
	}
	obs(q1, 0, 0, 10*time.Millisecond, []byte("a"))
	obs(q2, 0, time.Millisecond, 5*time.Millisecond, []byte("b"))
	obs(q1, 0, 11*time.Millisecond, 12*time.Millisecond, []byte("a")) // the driver's next page of q1
	obs(q2, 1, 6*time.Millisecond, 7*time.Millisecond, []byte("b"))   // a retry
	obs(q3, 0, 20*time.Millisecond, 21*time.Millisecond, int64(5), []raw{raw("a"), raw("b")})
	st.metrics.ObserveBatch(t.Context(), gocql.ObservedBatch{Statements: []string{"INSERT a", "INSERT b"},
		Values: [][]any{{raw("k"), 1}, {raw("k"), "x"}}, Batch: &gocql.Batch{Type: gocql.UnloggedBatch, Cons: gocql.Quorum},
		Start: t0, End: t0})
	w := do("/statements/stop")
	var rec Recording
	if err := json.Unmarshal(w.Body.Bytes(), &rec); err != nil {
		t.Fatalf("stop: %d %s: %v", w.Code, w.Body, err)
	}
	if len(rec.Requests) != 2 {
		t.Fatalf("recorded %+v, want 2 requests", rec.Requests)
	}
	q, b := rec.Requests[0], rec.Requests[1]
	if q.Kind != "query" || q.Sent != 3 || q.Pages != 1 || q.Retries != 1 || q.Concurrent != 2 || q.PageSize != 100 ||
		q.Consistency != "ONE" || len(q.Samples) != 2 || q.Samples[1].Values[0][0] != (RecordedValue{T: "blob", V: "Yg=="}) {
		t.Fatalf("query recorded as %+v", q)
	}
	if v := recordValue([]raw{raw("a"), raw("b")}); v != (RecordedValue{T: "list<blob>", V: "YQ==,Yg=="}) {
		t.Fatalf("a list of blobs recorded as %+v", v)
	}
	// An insert's name, value and timestamp are bound by pointer (inserts).
	ins := newInserts(raw("k"), 1).insert(raw("n"), raw("v"), 7)
	if v := recordValues(ins); v[1] != (RecordedValue{T: "blob", V: "bg=="}) || v[2] != (RecordedValue{T: "blob", V: "dg=="}) || v[3] != (RecordedValue{T: "bigint", V: "7"}) {
		t.Fatalf("an insert's values recorded as %+v", v)
	}
	// A RandomPartitioner token is bound as a *big.Int.
	if v := recordValue(new(big.Int).Lsh(big.NewInt(1), 126)); v != (RecordedValue{T: "varint", V: "85070591730234615865843651857942052864"}) {
		t.Fatalf("a RandomPartitioner token recorded as %+v", v)
	}
	if b.Kind != "batch UNLOGGED" || b.Sent != 1 || b.Consistency != "QUORUM" || len(b.Samples) != 1 ||
		b.Samples[0].Values[1][1] != (RecordedValue{T: "text", V: "x"}) || b.Samples[0].Values[0][1] != (RecordedValue{T: "int", V: "1"}) {
		t.Fatalf("batch recorded as %+v", b)
	}
	if w := do("/statements/start?samples=x"); w.Code != http.StatusBadRequest {
		t.Fatalf("bad samples: %d", w.Code)
	}
}
