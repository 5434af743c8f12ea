package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"net/http"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/engine/cqlstore"
)

// The direct CQL column (-compare direct): the floor of the Cassandra
// store, a client of the same driver sending the cluster exactly the
// requests thriftd's Cassandra store sends for each shape. They are not
// restated here: for each shape thriftd's statement recorder (the admin
// endpoint's /debug/store/statements, engine/cqlstore/record.go) records
// what the store sends while thriftd-stress runs the shape on one
// connection, and the client replays it, at the comparison's
// concurrency: per call, each distinct request as many times as the store
// sent it per call (fractions carried from call to call), in the order the
// store first sent them, those the store sent several at once in parallel
// (as many as it had in flight), with the same consistency, page size,
// explicit page states and bound values (cycled through the recorded
// samples), reading every row as the store did. Its CPU per call is the
// client process's own (utime+stime of /proc/self/stat) beside the
// node's.

// replayReq is one distinct request of a recording, ready to send.
type replayReq struct {
	cqlstore.RecordedRequest
	perCall float64
	// pagesPerSend is how many pages of each the store read.
	pagesPerSend int
	cons         gocql.Consistency
	serial       gocql.Consistency
	batch        gocql.BatchType
	samples      []replaySample
	next         atomic.Uint64
}

type replaySample struct {
	values [][]any
	state  []byte
}

// replay is the calls of one shape as thriftd's store made them.
type replay struct {
	s     *gocql.Session
	reqs  []*replayReq
	calls uint64 // thriftd's calls while recording
	// sent counts the client's requests (first attempts).
	sent atomic.Int64
	// carry holds the fractions of requests owed from earlier calls,
	// one per request, under mu.
	mu    sync.Mutex
	carry []float64
}

// driverCount counts every request the direct client's driver sends,
// further pages and retries included (gocql's QueryObserver and
// BatchObserver).
type driverCount struct{ n atomic.Int64 }

func (c *driverCount) ObserveQuery(context.Context, gocql.ObservedQuery) { c.n.Add(1) }
func (c *driverCount) ObserveBatch(context.Context, gocql.ObservedBatch) { c.n.Add(1) }

// adminPost posts to thriftd's admin endpoint and returns the answer.
func adminPost(admin, path string) ([]byte, error) {
	resp, err := (&http.Client{Timeout: time.Minute}).Post("http://"+admin+path, "", nil)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode/100 != 2 {
		err = fmt.Errorf("POST %s: %s: %s", path, resp.Status, strings.TrimSpace(string(body)))
	}
	return body, err
}

// recordShape runs thriftd-stress args against thriftd on the Cassandra
// store p with its statement recorder on, and returns the recording and
// the calls made.
func recordShape(stressBin string, p *process, args ...string) (*cqlstore.Recording, uint64, error) {
	if _, err := adminPost(p.admin, "/debug/store/statements/start?samples=2000"); err != nil {
		return nil, 0, err
	}
	sum, err := stress(stressBin, p, args...)
	body, rerr := adminPost(p.admin, "/debug/store/statements/stop")
	if err != nil {
		return nil, 0, err
	}
	if rerr != nil {
		return nil, 0, rerr
	}
	var rec cqlstore.Recording
	if err := json.Unmarshal(body, &rec); err != nil {
		return nil, 0, fmt.Errorf("the statement recording: %w", err)
	}
	return &rec, sum.Ops, nil
}

// newReplay makes the replay of rec, made while thriftd served calls.
func newReplay(s *gocql.Session, rec *cqlstore.Recording, calls uint64) (*replay, error) {
	r := &replay{s: s, calls: calls}
	reqs := slices.Clone(rec.Requests)
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].FirstMicros < reqs[j].FirstMicros })
	for _, q := range reqs {
		if q.Sent == 0 {
			continue
		}
		rq := &replayReq{RecordedRequest: q, perCall: float64(q.Sent) / float64(calls),
			pagesPerSend: 1 + int(math.Round(float64(q.Pages)/float64(q.Sent)))}
		var err error
		if rq.cons, err = gocql.ParseConsistencyWrapper(q.Consistency); err != nil {
			return nil, err
		}
		if q.Serial != "" {
			if rq.serial, err = gocql.ParseConsistencyWrapper(q.Serial); err != nil {
				return nil, err
			}
		}
		switch q.Kind {
		case "query":
		case "batch LOGGED":
			rq.batch = gocql.LoggedBatch
		case "batch UNLOGGED":
			rq.batch = gocql.UnloggedBatch
		case "batch COUNTER":
			rq.batch = gocql.CounterBatch
		default:
			return nil, fmt.Errorf("recorded request of unknown kind %q", q.Kind)
		}
		for _, smp := range q.Samples {
			var out replaySample
			for _, vs := range smp.Values {
				vals, err := replayValues(vs)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", q.Statements[0], err)
				}
				out.values = append(out.values, vals)
			}
			if smp.PageState != "" {
				if out.state, err = base64.StdEncoding.DecodeString(smp.PageState); err != nil {
					return nil, err
				}
			}
			rq.samples = append(rq.samples, out)
		}
		if len(rq.samples) == 0 {
			return nil, fmt.Errorf("no values recorded for %s", q.Statements[0])
		}
		r.reqs = append(r.reqs, rq)
	}
	if len(r.reqs) == 0 {
		return nil, fmt.Errorf("thriftd sent no request in %d calls", calls)
	}
	r.carry = make([]float64, len(r.reqs))
	return r, nil
}

func replayValues(vs []cqlstore.RecordedValue) ([]any, error) {
	out := make([]any, len(vs))
	for i, v := range vs {
		var err error
		switch v.T {
		case "null":
		case "blob":
			out[i], err = base64.StdEncoding.DecodeString(v.V)
		case "list<blob>":
			list := [][]byte{}
			for _, b := range strings.Split(v.V, ",") {
				if v.V == "" {
					break
				}
				x, derr := base64.StdEncoding.DecodeString(b)
				if derr != nil {
					err = derr
				}
				list = append(list, x)
			}
			out[i] = list
		case "text":
			out[i] = v.V
		case "bigint":
			out[i], err = strconv.ParseInt(v.V, 10, 64)
		case "int":
			out[i], err = strconv.Atoi(v.V)
		case "boolean":
			out[i], err = strconv.ParseBool(v.V)
		case "varint":
			n, ok := new(big.Int).SetString(v.V, 10)
			if !ok {
				err = fmt.Errorf("a varint that is not a decimal integer: %q", v.V)
			}
			out[i] = n
		default:
			err = fmt.Errorf("a bound value of type %s", v.T)
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// maxListed bounds the distinct requests the report lists per shape.
const maxListed = 8

// describe lists the requests per call, for the report.
func (r *replay) describe() []string {
	var out []string
	for i, q := range r.reqs {
		if i == maxListed {
			out = append(out, fmt.Sprintf("and %d more distinct requests", len(r.reqs)-i))
			break
		}
		what := q.Kind
		if q.Kind != "query" {
			what += fmt.Sprintf(" of %d", len(q.Statements))
		}
		extra := ""
		if q.Pages > 0 {
			extra += fmt.Sprintf(", %.2f further pages per call", float64(q.Pages)/float64(r.calls))
		}
		if q.Concurrent > 1 {
			extra += fmt.Sprintf(", up to %d at once", q.Concurrent)
		}
		if q.PagedByState {
			extra += ", from a page state"
		}
		var stmts []string
		for i := 0; i < len(q.Statements); {
			j := i
			for j < len(q.Statements) && q.Statements[j] == q.Statements[i] {
				j++
			}
			if j-i > 1 {
				stmts = append(stmts, fmt.Sprintf("%d × `%s`", j-i, q.Statements[i]))
			} else {
				stmts = append(stmts, "`"+q.Statements[i]+"`")
			}
			i = j
		}
		out = append(out, fmt.Sprintf("%.2f × %s at %s, page size %d%s: %s", q.perCall, what, q.Consistency, q.PageSize, extra, strings.Join(stmts, "; ")))
	}
	return out
}

// send sends one request of q and reads all its rows.
func (r *replay) send(ctx context.Context, q *replayReq) error {
	smp := q.samples[(q.next.Add(1)-1)%uint64(len(q.samples))]
	r.sent.Add(1)
	if q.Kind != "query" {
		b := r.s.Batch(q.batch).WithContext(ctx).Consistency(q.cons)
		if q.Serial != "" {
			b.SerialConsistency(q.serial)
		}
		for i, stmt := range q.Statements {
			b.Query(stmt, smp.values[i]...)
		}
		return b.Exec()
	}
	qq := r.s.Query(q.Statements[0], smp.values[0]...).WithContext(ctx).Consistency(q.cons).Idempotent(q.Idempotent)
	if q.PageSize > 0 {
		qq.PageSize(q.PageSize)
	}
	if q.Serial != "" {
		qq.SerialConsistency(q.serial)
	}
	if smp.state != nil {
		qq.PageState(smp.state)
	}
	// As many pages as the store read: the first, and the further
	// pages it had the driver fetch, on average; no prefetching, so
	// that no page is read the store did not read.
	qq.Prefetch(0)
	iter := qq.Iter()
	if rd, err := iter.RowData(); err == nil && len(rd.Values) > 0 {
		n := iter.NumRows()
		for page := 0; page < q.pagesPerSend; page++ {
			if page > 0 {
				if !iter.Scan(rd.Values...) {
					break
				}
				n = iter.NumRows() - 1
			}
			for range n {
				if !iter.Scan(rd.Values...) {
					break
				}
			}
		}
	}
	return iter.Close()
}

// counts are how many of each request the next call sends: as many as
// the store sent per call, the fractions carried from call to call
// across all connections, so that over a run the client sends each
// request as often per call as the store did.
func (r *replay) counts(ns []int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, q := range r.reqs {
		r.carry[i] += q.perCall
		ns[i] = int(r.carry[i])
		r.carry[i] -= float64(ns[i])
	}
}

// call is one Thrift call's requests; ns is scratch space.
func (r *replay) call(ctx context.Context, ns []int) error {
	r.counts(ns)
	for i, q := range r.reqs {
		n := ns[i]
		if n == 0 {
			continue
		}
		if q.Concurrent <= 1 || n == 1 {
			for range n {
				if err := r.send(ctx, q); err != nil {
					return err
				}
			}
			continue
		}
		errs := make(chan error, n)
		sem := make(chan struct{}, q.Concurrent)
		for range n {
			sem <- struct{}{}
			go func() {
				errs <- r.send(ctx, q)
				<-sem
			}()
		}
		var first error
		for range n {
			if err := <-errs; err != nil && first == nil {
				first = err
			}
		}
		if first != nil {
			return first
		}
	}
	return nil
}

// run makes calls from conns goroutines for d, at rate calls per second
// in all when rate > 0 (open loop, as thriftd-stress -rate), and returns
// the summary.
func (r *replay) run(conns int, d time.Duration, rate float64) (*summary, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var firstOnce sync.Once
	var firstErr error
	var mu sync.Mutex
	var lat []time.Duration
	start := time.Now()
	deadline := start.Add(d)
	var slot atomic.Int64
	every := time.Duration(0)
	if rate > 0 {
		every = time.Duration(float64(time.Second) / rate)
	}
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ns := make([]int, len(r.reqs))
			var mine []time.Duration
			defer func() { mu.Lock(); lat = append(lat, mine...); mu.Unlock() }()
			for {
				t0 := time.Now()
				if every > 0 {
					due := start.Add(time.Duration(slot.Add(1)-1) * every)
					if !due.Before(deadline) {
						return
					}
					time.Sleep(time.Until(due))
					t0 = due
				} else if !t0.Before(deadline) {
					return
				}
				if err := r.call(ctx, ns); err != nil {
					firstOnce.Do(func() { firstErr = err })
					cancel()
					return
				}
				mine = append(mine, time.Since(t0))
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	elapsed := time.Since(start)
	if len(lat) == 0 {
		return nil, fmt.Errorf("the direct client finished no call in %v", d)
	}
	slices.Sort(lat)
	p99 := lat[min(len(lat)-1, len(lat)*99/100)]
	return &summary{Ops: uint64(len(lat)), Seconds: elapsed.Seconds(), OpsPerSec: float64(len(lat)) / elapsed.Seconds(),
		P99Ms: float64(p99) / float64(time.Millisecond)}, nil
}

// runCPU is run with the client's CPU per call and the node's.
func (r *replay) runCPU(conns int, d time.Duration, rate float64, nodes []int) (*summary, []time.Duration, error) {
	p := &process{pid: os.Getpid(), others: nodes}
	before := p.cpus()
	s, err := r.run(conns, d, rate)
	if err != nil {
		return nil, nil, err
	}
	after := p.cpus()
	per := make([]time.Duration, len(after))
	for i := range after {
		per[i] = (after[i] - before[i]) / time.Duration(s.Ops)
	}
	return s, per, nil
}

// directSession is the direct client's session: the driver's settings
// thriftd's store uses (engine/cqlstore Cluster.session: protocol 5, two
// connections per node, token-aware round robin, consistency ONE by
// default), without its per-request timeouts and retries.
func directSession(points string, obs *driverCount) (*gocql.Session, error) {
	cc := gocql.NewCluster(strings.Split(points, ",")...)
	cc.ProtoVersion = 5
	cc.NumConns = 2
	cc.Consistency = gocql.One
	cc.Timeout = 10 * time.Second
	cc.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	cc.QueryObserver, cc.BatchObserver = obs, obs
	return cc.CreateSession()
}
