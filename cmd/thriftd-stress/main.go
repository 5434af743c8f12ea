// Command thriftd-stress is the Go successor of Cassandra 0.6's
// contrib/py_stress: it loads and reads a Cassandra 0.6 Thrift server
// (thriftd, or Cassandra 0.6 itself) from many connections at once and
// reports throughput and latency percentiles.
//
// Options keep py_stress's names and defaults, so that old figures
// compare:
//
//	thriftd-stress -o insert -n 100000 -d 127.0.0.1
//	thriftd-stress -o read -n 100000
//
// Every interval it prints py_stress's CSV progress line
// (total,interval_op_rate,avg_latency,elapsed_time) followed by the
// interval's p99 latency and error count, and at the end a summary with
// ops/s and the latency percentiles p50, p95, p99 and p99.9.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	o, err := parseOptions(os.Args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "thriftd-stress:", err)
		os.Exit(2)
	}
	out := io.Writer(os.Stdout)
	if o.file != "" {
		f, err := os.Create(o.file)
		if err != nil {
			fmt.Fprintln(os.Stderr, "thriftd-stress:", err)
			os.Exit(1)
		}
		defer f.Close()
		out = f
	}
	if o.cpuProfile != "" {
		// The load generator's own CPU profile: where a client's time
		// goes when it, not the server, limits a figure.
		f, err := os.Create(o.cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "thriftd-stress:", err)
			os.Exit(1)
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := run(ctx, o, out)
	if s != nil {
		if o.json {
			json.NewEncoder(os.Stdout).Encode(s)
		} else {
			s.print(os.Stdout)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "thriftd-stress:", err)
		os.Exit(1)
	}
}

// run starts the workers and the progress reporter and waits for both.
func run(ctx context.Context, o *options, progress io.Writer) (*summary, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var completed atomic.Uint64
	recs := make([]*recorder, o.threads)
	workers := make([]*worker, o.threads)
	for i := range workers {
		recs[i] = &recorder{}
		w, err := newWorker(o, i, recs[i], &completed)
		if err != nil {
			for _, w := range workers[:i] {
				w.close()
			}
			return nil, err
		}
		workers[i] = w
	}
	// -duration is measuring time: it starts once every connection is
	// open, which takes a while on a busy machine.
	if o.duration > 0 {
		var stop context.CancelFunc
		ctx, stop = context.WithCancel(ctx)
		defer stop()
		go func() {
			// With -min-ops the run goes on past -duration until that
			// many calls have succeeded.
			t := time.NewTimer(o.duration)
			defer t.Stop()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			for completed.Load() < uint64(o.minOps) {
				select {
				case <-ctx.Done():
					return
				case <-time.After(5 * time.Millisecond):
				}
			}
			stop()
		}()
	}
	var failedOnce sync.Once
	var failed error
	start := time.Now()
	if o.rate > 0 {
		o.sched = newSchedule(o.rate, start)
	}
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer w.close()
			if err := w.run(ctx); err != nil {
				// Kept apart from the context's cause, which the end of
				// a -duration run sets too: a worker's error always
				// fails the run.
				failedOnce.Do(func() { failed = err })
				cancel(err)
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()

	fmt.Fprintln(progress, "total,interval_op_rate,avg_latency,elapsed_time,interval_p99_latency,errors")
	var total uint64
	last := start
	tick := time.NewTicker(o.interval)
	defer tick.Stop()
	report := func(now time.Time) {
		var h histogram
		for _, r := range recs {
			r.takeInterval(&h)
		}
		total += h.n
		var errs uint64
		for _, r := range recs {
			r.mu.Lock()
			errs += r.errors
			r.mu.Unlock()
		}
		secs := now.Sub(last).Seconds()
		fmt.Fprintf(progress, "%d,%.0f,%.6f,%.0f,%.6f,%d\n", total, float64(h.n)/secs,
			h.mean().Seconds(), now.Sub(start).Seconds(), h.quantile(0.99).Seconds(), errs)
		last = now
	}
	for done := false; !done; {
		select {
		case now := <-tick.C:
			report(now)
		case <-finished:
			done = true
		}
	}
	elapsed := time.Since(start)
	report(time.Now())

	var h histogram
	var errs uint64
	for _, r := range recs {
		errs += r.takeTotal(&h)
	}
	s := newSummary(o, &h, errs, elapsed)
	if failed != nil {
		return s, failed
	}
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		return s, err
	}
	return s, nil
}

// summary is the final report of a run.
type summary struct {
	Operation   string  `json:"operation"`
	Connections int     `json:"connections"`
	Ops         uint64  `json:"ops"`
	Errors      uint64  `json:"errors"`
	Seconds     float64 `json:"seconds"`
	OpsPerSec   float64 `json:"ops_per_sec"`
	MeanMs      float64 `json:"mean_ms"`
	P50Ms       float64 `json:"p50_ms"`
	P95Ms       float64 `json:"p95_ms"`
	P99Ms       float64 `json:"p99_ms"`
	P999Ms      float64 `json:"p999_ms"`
	MaxMs       float64 `json:"max_ms"`
}

func newSummary(o *options, h *histogram, errs uint64, elapsed time.Duration) *summary {
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	return &summary{
		Operation: o.operation, Connections: o.threads,
		Ops: h.n, Errors: errs, Seconds: elapsed.Seconds(),
		OpsPerSec: float64(h.n) / elapsed.Seconds(),
		MeanMs:    ms(h.mean()), P50Ms: ms(h.quantile(0.50)), P95Ms: ms(h.quantile(0.95)),
		P99Ms: ms(h.quantile(0.99)), P999Ms: ms(h.quantile(0.999)), MaxMs: ms(h.max),
	}
}

func (s *summary) print(w io.Writer) {
	fmt.Fprintf(w, "%s: %d ops in %.2f s over %d connections, %d errors\n", s.Operation, s.Ops, s.Seconds, s.Connections, s.Errors)
	fmt.Fprintf(w, "throughput %.0f ops/s\n", s.OpsPerSec)
	fmt.Fprintf(w, "latency ms: mean %.3f  p50 %.3f  p95 %.3f  p99 %.3f  p99.9 %.3f  max %.3f\n",
		s.MeanMs, s.P50Ms, s.P95Ms, s.P99Ms, s.P999Ms, s.MaxMs)
}

// options are the command line; names and defaults follow py_stress.
type options struct {
	numKeys      int
	skipKeys     float64
	threads      int
	columns      int
	columnSize   int
	nodes        []string
	stdev        float64
	random       bool
	file         string
	port         int
	framed       bool
	operation    string
	superColumns int
	familyType   string
	keepGoing    bool
	interval     time.Duration
	rangeCount   int

	// Beyond py_stress.
	consistency  string
	keyspace     string
	columnFamily string
	sliceCount   int
	multigetKeys int
	readRatio    float64
	duration     time.Duration
	clockStamps  bool
	randomValues bool
	json         bool
	timeout      time.Duration
	minOps       int
	cpuProfile   string
	// indexValues, when positive, gives every row -o batch writes an
	// indexed column: indexColumn, one of indexValues values by key
	// number, so that each value is held by 1/indexValues of the rows;
	// -o indexed asks for the rows of one of them.
	indexValues int
	// api is the interface spoken: "0.6", or "19" (Cassandra 0.7-2.1's,
	// framed, keyspace by set_keyspace).
	api string
	// rate, when positive, paces the calls (-rate); sched is its
	// schedule, made when the run starts.
	rate  float64
	sched *schedule
}

var operations = []string{"insert", "read", "rangeslice", "multiget", "batch", "mixed", "paged", "add", "indexed"}

func parseOptions(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("thriftd-stress", flag.ContinueOnError)
	var nodes string
	var interval float64
	fs.IntVar(&o.numKeys, "n", 1000000, "number of keys")
	fs.Float64Var(&o.skipKeys, "N", 0, "fraction of each connection's key range to skip initially")
	fs.IntVar(&o.threads, "t", 50, "number of connections (py_stress: threads)")
	fs.IntVar(&o.columns, "c", 5, "columns per key")
	fs.IntVar(&o.columnSize, "S", 32, "bytes per column value")
	fs.StringVar(&nodes, "d", "localhost", "comma-separated hosts; each connection picks one at random")
	fs.Float64Var(&o.stdev, "s", 0.1, "standard deviation factor of the gaussian key chooser for reads")
	fs.BoolVar(&o.random, "r", false, "read uniformly random keys instead of gaussian ones")
	fs.StringVar(&o.file, "f", "", "write the CSV progress lines to this file instead of stdout")
	fs.IntVar(&o.port, "p", 9160, "Thrift port")
	fs.BoolVar(&o.framed, "m", false, "use framed transport (same as -framed)")
	fs.BoolVar(&o.framed, "framed", false, "use framed transport")
	fs.StringVar(&o.operation, "o", "insert", "operation: "+strings.Join(operations, ", "))
	fs.IntVar(&o.superColumns, "u", 1, "super columns per key (with -y super)")
	fs.StringVar(&o.familyType, "y", "regular", "column family type: regular or super")
	fs.BoolVar(&o.keepGoing, "k", false, "report errors and keep going")
	fs.Float64Var(&interval, "i", 10, "seconds between progress lines")
	fs.IntVar(&o.rangeCount, "g", 1000, "rows per get_range_slices call")
	fs.StringVar(&o.consistency, "cl", "ONE", "consistency level")
	fs.StringVar(&o.keyspace, "keyspace", "Keyspace1", "keyspace")
	fs.StringVar(&o.columnFamily, "cf", "", "column family (default Standard1, or Super1 with -y super)")
	fs.IntVar(&o.sliceCount, "slice", 0, "columns per read slice (default -c)")
	fs.IntVar(&o.multigetKeys, "multiget", 10, "keys per multiget_slice call")
	fs.Float64Var(&o.readRatio, "mix", 0.5, "fraction of reads in -o mixed (the rest are inserts)")
	fs.DurationVar(&o.duration, "duration", 0, "run for this long, cycling through the keys (default: each key once, as py_stress)")
	fs.BoolVar(&o.clockStamps, "now", false, "timestamp writes with the clock in microseconds (py_stress wrote 0)")
	fs.BoolVar(&o.randomValues, "random-values", false, "write random, incompressible values, each column its own (py_stress repeated one MD5 in hex)")
	fs.BoolVar(&o.json, "json", false, "print the final summary as one JSON object")
	fs.DurationVar(&o.timeout, "timeout", 30*time.Second, "socket timeout")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write the load generator's own CPU profile to this file")
	fs.IntVar(&o.minOps, "min-ops", 0, "with -duration, run on until this many calls have succeeded")
	fs.IntVar(&o.indexValues, "index-values", 0, "with -api 19: -o batch also writes column \""+indexColumn+"\", one of this many values by key number (each value in 1/N of the rows); -o indexed is get_indexed_slices of -g rows of -slice columns where that column equals a random one of them (the family needs a KEYS index on it)")
	fs.Float64Var(&o.rate, "rate", 0, "send this many calls per second in all, evenly spaced, whatever the answers' speed (open loop; latency counts from when each call was due; at most -t in flight); 0: each connection sends its next call when the last is answered")
	fs.StringVar(&o.api, "api", "0.6", "interface: 0.6, or 19 (the 0.7-2.1 API of Cassandra 1.2: framed, set_keyspace; -o paged is get_paged_slice of -g columns; -o add adds 1 to counter -c's first name of a key chosen as reads choose theirs, in a counter family -cf)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	o.nodes = strings.Split(nodes, ",")
	o.interval = time.Duration(interval * float64(time.Second))
	if o.sliceCount <= 0 {
		o.sliceCount = o.columns
	}
	if o.columnFamily == "" {
		o.columnFamily = "Standard1"
		if o.familyType == "super" {
			o.columnFamily = "Super1"
		}
	}
	switch {
	case o.numKeys <= 0, o.threads <= 0, o.columns <= 0, o.columnSize < 0, o.superColumns <= 0, o.rangeCount <= 0, o.multigetKeys <= 0:
		return nil, errors.New("-n, -t, -c, -u, -g and -multiget must be positive, -S not negative")
	case o.threads > o.numKeys:
		return nil, errors.New("-t must not exceed -n: every connection needs keys")
	case o.skipKeys < 0 || o.skipKeys >= 1:
		return nil, errors.New("-N must be in [0, 1)")
	case o.interval <= 0:
		return nil, errors.New("-i must be positive")
	case o.familyType != "regular" && o.familyType != "super":
		return nil, fmt.Errorf("-y must be regular or super, not %q", o.familyType)
	case o.readRatio < 0 || o.readRatio > 1:
		return nil, errors.New("-mix must be in [0, 1]")
	case o.api != "0.6" && o.api != "19":
		return nil, fmt.Errorf("-api must be 0.6 or 19, not %q", o.api)
	case o.api == "19" && o.familyType != "regular":
		return nil, errors.New("-api 19 writes and reads standard column families only")
	case o.operation == "paged" && o.api != "19":
		return nil, errors.New("-o paged (get_paged_slice) needs -api 19")
	case o.operation == "add" && o.api != "19":
		return nil, errors.New("-o add (counters) needs -api 19")
	case o.rate < 0:
		return nil, errors.New("-rate must not be negative")
	case o.indexValues < 0:
		return nil, errors.New("-index-values must not be negative")
	case o.indexValues > 0 && o.api != "19":
		return nil, errors.New("-index-values (secondary indexes) needs -api 19")
	case o.operation == "indexed" && o.indexValues == 0:
		return nil, errors.New("-o indexed (get_indexed_slices) needs -index-values")
	}
	known := false
	for _, op := range operations {
		known = known || op == o.operation
	}
	if !known {
		return nil, fmt.Errorf("-o must be one of %s, not %q", strings.Join(operations, ", "), o.operation)
	}
	if _, err := consistencyLevel(o.consistency); err != nil {
		return nil, err
	}
	return o, nil
}
