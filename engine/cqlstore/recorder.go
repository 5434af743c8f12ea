package cqlstore

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// The statement recorder: a debug aid that lists what the store sends the
// cluster, so that a benchmark can replay exactly those statements from a
// client of its own (cmd/thriftd-bench's direct CQL column). Off, it costs
// one atomic load per request (metrics.ObserveQuery and ObserveBatch).
// The admin endpoint serves it (DebugHandler):
//
//	POST /debug/store/statements/start?samples=N   start, forgetting any earlier recording
//	POST /debug/store/statements/stop              stop; answers the recording
//
// The answer is one entry per distinct request: its statement text (a
// batch: its type and each statement's), consistency, serial consistency,
// page size and idempotence; how many were sent (first attempts), how many
// further pages the driver fetched on its own and how many retries there
// were; the most requests in flight at once; and up to N of the values
// bound (with the explicit page state, when the store set one), typed so
// that they can be sent again.

// maxSamples bounds the values kept per distinct request.
const maxSamples = 100_000

// RecordedValue is one bound value: T is its Go type ("blob" for []byte,
// "list<blob>" for a list of them, "text", "bigint" for int64, "int" for
// int32 or int, "boolean", "null"), V its value (blobs in base64, a
// list's separated by commas, numbers in decimal).
type RecordedValue struct {
	T string `json:"t"`
	V string `json:"v,omitempty"`
}

// RecordedSample is the values bound to one request: one list per
// statement (one for a query), and the explicit page state in base64.
type RecordedSample struct {
	Values    [][]RecordedValue `json:"values"`
	PageState string            `json:"page_state,omitempty"`
}

// RecordedRequest is one distinct request the store sent while recording.
type RecordedRequest struct {
	// Kind is "query", or "batch LOGGED", "batch UNLOGGED", "batch COUNTER".
	Kind       string   `json:"kind"`
	Statements []string `json:"statements"`
	// Consistency and Serial are the driver's names ("" when no serial).
	Consistency string `json:"consistency"`
	Serial      string `json:"serial_consistency,omitempty"`
	// PageSize is the query's page size (0: the driver's default, or a
	// batch); PagedByState whether the store set an explicit page state
	// (a page after the first, read page by page).
	PageSize     int  `json:"page_size"`
	PagedByState bool `json:"paged_by_state,omitempty"`
	Idempotent   bool `json:"idempotent"`
	// Sent counts first attempts; Pages further pages the driver fetched
	// by itself while the store read the rows; Retries later attempts.
	Sent    int `json:"sent"`
	Pages   int `json:"pages"`
	Retries int `json:"retries"`
	// Concurrent is the most requests of this kind in flight at once.
	Concurrent int `json:"concurrent"`
	// First is when the first was sent, in microseconds from the start
	// of the recording: the order the store sends them in.
	FirstMicros int64            `json:"first_micros"`
	Samples     []RecordedSample `json:"samples"`
}

// Recording is what the stop request answers.
type Recording struct {
	Seconds  float64           `json:"seconds"`
	Requests []RecordedRequest `json:"requests"`
}

// recording is a recording in progress.
type recording struct {
	mu      sync.Mutex
	start   time.Time
	samples int
	byKey   map[string]*recorded
	order   []*recorded
	// queries are the queries seen, so that the driver's further pages
	// of one (the same *Query, attempt 0 again) are told from new ones.
	queries map[*gocql.Query]struct{}
}

type recorded struct {
	RecordedRequest
	// ends are the end times of the requests in flight, for Concurrent.
	inFlight []span
}

type span struct{ start, end time.Time }

func (r *recording) entry(key string, mk func() RecordedRequest, start time.Time) *recorded {
	e := r.byKey[key]
	if e == nil {
		e = &recorded{RecordedRequest: mk()}
		e.FirstMicros = start.Sub(r.start).Microseconds()
		r.byKey[key] = e
		r.order = append(r.order, e)
	}
	return e
}

// overlap counts e's requests in flight during s, keeping Concurrent.
func (e *recorded) overlap(s span) {
	kept := e.inFlight[:0]
	for _, o := range e.inFlight {
		if o.end.After(s.start) {
			kept = append(kept, o)
		}
	}
	e.inFlight = append(kept, s)
	e.Concurrent = max(e.Concurrent, len(e.inFlight))
}

func (r *recording) query(q gocql.ObservedQuery) {
	if q.Query == nil {
		return
	}
	size, state := queryPaging(q.Query)
	serial := ""
	if s, ok := q.Query.GetSerialConsistency(); ok {
		serial = s.String()
	}
	cons := q.Query.GetConsistency().String()
	key := "q\x00" + q.Statement + "\x00" + cons + "\x00" + serial + "\x00" + strconv.Itoa(size) + "\x00" + strconv.FormatBool(state != nil)
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.entry(key, func() RecordedRequest {
		return RecordedRequest{Kind: "query", Statements: []string{q.Statement}, Consistency: cons, Serial: serial,
			PageSize: size, PagedByState: state != nil, Idempotent: q.Query.IsIdempotent()}
	}, q.Start)
	_, seen := r.queries[q.Query]
	switch {
	case q.Attempt > 0:
		e.Retries++
		return
	case seen:
		e.Pages++
		return
	}
	if len(r.queries) < 1<<20 {
		r.queries[q.Query] = struct{}{}
	}
	e.Sent++
	e.overlap(span{q.Start, q.End})
	if len(e.Samples) < r.samples {
		s := RecordedSample{Values: [][]RecordedValue{recordValues(q.Values)}}
		if state != nil {
			s.PageState = base64.StdEncoding.EncodeToString(state)
		}
		e.Samples = append(e.Samples, s)
	}
}

func (r *recording) batch(b gocql.ObservedBatch) {
	if b.Batch == nil {
		return
	}
	kind := "batch " + batchTypeName(b.Batch.Type)
	cons := b.Batch.GetConsistency().String()
	serial := ""
	if s, ok := b.Batch.GetSerialConsistency(); ok {
		serial = s.String()
	}
	key := "b\x00" + kind + "\x00" + cons + "\x00" + serial
	for _, s := range b.Statements {
		key += "\x00" + s
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.entry(key, func() RecordedRequest {
		return RecordedRequest{Kind: kind, Statements: append([]string(nil), b.Statements...), Consistency: cons, Serial: serial,
			Idempotent: b.Batch.IsIdempotent()}
	}, b.Start)
	if b.Attempt > 0 {
		e.Retries++
		return
	}
	e.Sent++
	e.overlap(span{b.Start, b.End})
	if len(e.Samples) < r.samples {
		s := RecordedSample{}
		for _, v := range b.Values {
			s.Values = append(s.Values, recordValues(v))
		}
		e.Samples = append(e.Samples, s)
	}
}

func batchTypeName(t gocql.BatchType) string {
	switch t {
	case gocql.LoggedBatch:
		return "LOGGED"
	case gocql.UnloggedBatch:
		return "UNLOGGED"
	case gocql.CounterBatch:
		return "COUNTER"
	}
	return strconv.Itoa(int(t))
}

// queryPaging reads a query's page size and explicit page state, which
// the driver sets but does not let be read (its fields pageSize and
// initialPageState); -1 when the driver no longer has them
// (TestRecorderReadsPaging fails then).
func queryPaging(q *gocql.Query) (size int, state []byte) {
	v := reflect.ValueOf(q).Elem()
	size = -1
	if f := v.FieldByName("pageSize"); f.IsValid() && f.Kind() == reflect.Int {
		size = int(f.Int())
	}
	if f := v.FieldByName("initialPageState"); f.IsValid() && f.Kind() == reflect.Slice && f.Len() > 0 {
		state = append([]byte(nil), f.Bytes()...)
	}
	return size, state
}

// recordValues copies the values bound to one statement.
func recordValues(vs []any) []RecordedValue {
	out := make([]RecordedValue, len(vs))
	for i, v := range vs {
		out[i] = recordValue(v)
	}
	return out
}

func recordValue(v any) RecordedValue {
	switch x := v.(type) {
	case nil:
		return RecordedValue{T: "null"}
	case []byte:
		return RecordedValue{T: "blob", V: base64.StdEncoding.EncodeToString(x)}
	case raw:
		return RecordedValue{T: "blob", V: base64.StdEncoding.EncodeToString(x)}
	case *raw: // bound by pointer (inserts)
		return RecordedValue{T: "blob", V: base64.StdEncoding.EncodeToString(*x)}
	case *stamp: // bound by pointer (inserts)
		return RecordedValue{T: "bigint", V: strconv.FormatInt(int64(*x), 10)}
	case []raw:
		return blobList(len(x), func(i int) []byte { return x[i] })
	case [][]byte:
		return blobList(len(x), func(i int) []byte { return x[i] })
	case string:
		return RecordedValue{T: "text", V: x}
	case int64:
		return RecordedValue{T: "bigint", V: strconv.FormatInt(x, 10)}
	case int:
		return RecordedValue{T: "int", V: strconv.Itoa(x)}
	case int32:
		return RecordedValue{T: "int", V: strconv.Itoa(int(x))}
	case bool:
		return RecordedValue{T: "boolean", V: strconv.FormatBool(x)}
	case *big.Int: // a RandomPartitioner token
		return RecordedValue{T: "varint", V: x.String()}
	}
	return RecordedValue{T: fmt.Sprintf("unsupported %T", v)}
}

// blobList is a list of blobs, in base64 separated by commas.
func blobList(n int, at func(int) []byte) RecordedValue {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = base64.StdEncoding.EncodeToString(at(i))
	}
	return RecordedValue{T: "list<blob>", V: strings.Join(parts, ",")}
}

// startRecording starts a recording keeping up to samples values per
// distinct request, forgetting any earlier one.
func (m *metrics) startRecording(samples int) {
	m.rec.Store(&recording{start: time.Now(), samples: samples, byKey: map[string]*recorded{}, queries: map[*gocql.Query]struct{}{}})
}

// stopRecording ends the recording and returns it (nil when none ran).
func (m *metrics) stopRecording() *Recording {
	r := m.rec.Swap(nil)
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	out := &Recording{Seconds: time.Since(r.start).Seconds(), Requests: []RecordedRequest{}}
	for _, e := range r.order {
		out.Requests = append(out.Requests, e.RecordedRequest)
	}
	return out
}

// DebugHandler serves the statement recorder under the admin endpoint's
// /debug/store/ (see the top of this file).
func (st *Store) DebugHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /statements/start", func(w http.ResponseWriter, r *http.Request) {
		n := 1000
		if s := r.URL.Query().Get("samples"); s != "" {
			v, err := strconv.Atoi(s)
			if err != nil || v < 0 || v > maxSamples {
				http.Error(w, fmt.Sprintf("samples must be a number from 0 to %d, not %q", maxSamples, s), http.StatusBadRequest)
				return
			}
			n = v
		}
		if st.metrics == nil {
			http.Error(w, "this store sends no requests", http.StatusNotImplemented)
			return
		}
		st.metrics.startRecording(n)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /statements/stop", func(w http.ResponseWriter, r *http.Request) {
		var rec *Recording
		if st.metrics != nil {
			rec = st.metrics.stopRecording()
		}
		if rec == nil {
			http.Error(w, "no recording was started (POST /debug/store/statements/start)", http.StatusConflict)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(rec)
	})
	return mux
}
