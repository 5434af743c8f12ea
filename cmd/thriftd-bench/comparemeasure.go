package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// compareRow is one line of the comparison table.
type compareRow struct {
	shape string
	conns int
	ops   map[string]float64
	p99   map[string]float64
	// Server CPU time per call of each column, one figure per server
	// process (thriftd and the Cassandra node for the cql column; the
	// client and the node for the direct column).
	cpu map[string][]time.Duration
	// The same at the fixed rate of -rate (rate calls/s; 0: none):
	// calls per second reached and CPU time per call.
	rate    float64
	rateOps map[string]float64
	rateCPU map[string][]time.Duration
}

func newCompareRow(shape string, conns int, rate float64) compareRow {
	return compareRow{shape: shape, conns: conns, rate: rate, ops: map[string]float64{}, p99: map[string]float64{},
		cpu: map[string][]time.Duration{}, rateOps: map[string]float64{}, rateCPU: map[string][]time.Duration{}}
}

// measureTarget takes one cell of the comparison: shape s against target
// t at n connections, warmed, at its maximum, then at -rate when set.
func measureTarget(o *options, t target, s shape19, n int, r *compareRow, shapeWarm, duration time.Duration) error {
	c := &o.compare
	valueSize := strconv.Itoa(o.valueSize)
	shape := s.args19For(c.rows, c.indexRows)
	if t.col == col06 {
		if s.args06 == nil {
			return nil // a shape 0.6 cannot make
		}
		shape = append([]string{"-n", strconv.Itoa(c.rows)}, s.args06...)
	}
	if shapeWarm > 0 {
		a := append(append([]string{"-keyspace", t.ks, "-t", strconv.Itoa(n), "-S", valueSize, "-duration", shapeWarm.String()}, t.args...), shape...)
		if _, err := stress(o.stress, t.p, a...); err != nil {
			// One server failing a shape (a timeout of an overloaded
			// node) leaves its cell empty, not the whole table.
			return fmt.Errorf("%s, %s, %d connections, warming: %v", t.title, s.name, n, err)
		}
	}
	a := append(append([]string{"-keyspace", t.ks, "-t", strconv.Itoa(n), "-S", valueSize, "-duration", duration.String()}, t.args...), shape...)
	run := func(a []string, rate float64) (*summary, []time.Duration, error) {
		stop := c.figureProfiles(t, s, n, rate, duration)
		var sum *summary
		var cpu []time.Duration
		var err error
		if t.p.serverPid() != 0 {
			sum, cpu, err = stressCPU(o.stress, t.p, a...)
		} else {
			sum, err = stress(o.stress, t.p, a...)
		}
		if perr := stop(); perr != nil && err == nil {
			err = perr
		}
		return sum, cpu, err
	}
	sum, cpu, err := run(a, 0)
	if err != nil {
		return fmt.Errorf("%s, %s, %d connections: %v", t.title, s.name, n, err)
	}
	r.ops[t.col], r.p99[t.col], r.cpu[t.col] = sum.OpsPerSec, sum.P99Ms, cpu
	if r.rate > 0 {
		sum, cpu, err := run(append(append([]string(nil), a...), "-rate", strconv.FormatFloat(r.rate, 'f', -1, 64)), r.rate)
		if err != nil {
			return fmt.Errorf("%s, %s, %d connections, at %v calls/s: %v", t.title, s.name, n, r.rate, err)
		}
		r.rateOps[t.col], r.rateCPU[t.col] = sum.OpsPerSec, cpu
	}
	return nil
}

// directState is the direct CQL column's: its session, the thriftd on
// the Cassandra store whose requests it replays, and each shape's replay.
type directState struct {
	s       *gocql.Session
	count   *driverCount
	thriftd target
	replays map[string]*replay
	// perCall are the requests per call the client's driver sent, by
	// shape, beside thriftd's.
	perCall map[string][2]float64
}

// measure takes the direct column's cell of shape s at n connections:
// records what thriftd's store sends for it (once per shape), then
// replays it warmed, at its maximum, then at -rate when set.
func (d *directState) measure(o *options, s shape19, n int, r *compareRow, shapeWarm, duration, capture time.Duration) error {
	c := &o.compare
	rp := d.replays[s.name]
	if rp == nil {
		a := append(append([]string{"-keyspace", d.thriftd.ks, "-t", "1", "-S", strconv.Itoa(o.valueSize), "-duration", capture.String()}, d.thriftd.args...),
			s.args19For(c.rows, c.indexRows)...)
		rec, calls, err := recordShape(o.stress, d.thriftd.p, a...)
		if err != nil {
			return fmt.Errorf("recording thriftd's requests: %w", err)
		}
		if rp, err = newReplay(d.s, rec, calls); err != nil {
			return err
		}
		d.replays[s.name] = rp
	}
	if shapeWarm > 0 {
		if _, err := rp.run(n, shapeWarm, 0); err != nil {
			return fmt.Errorf("warming: %w", err)
		}
	}
	self := target{col: colDirect, p: &process{pid: os.Getpid(), others: d.thriftd.p.others}}
	sent0, all0 := rp.sent.Load(), d.count.n.Load()
	stop := c.figureProfiles(self, s, n, 0, duration)
	sum, cpu, err := rp.runCPU(n, duration, 0, d.thriftd.p.others)
	if perr := stop(); perr != nil && err == nil {
		err = perr
	}
	if err != nil {
		return err
	}
	if d.perCall == nil {
		d.perCall = map[string][2]float64{}
	}
	d.perCall[s.name] = [2]float64{float64(rp.sent.Load()-sent0) / float64(sum.Ops), float64(d.count.n.Load()-all0) / float64(sum.Ops)}
	r.ops[colDirect], r.p99[colDirect], r.cpu[colDirect] = sum.OpsPerSec, sum.P99Ms, cpu
	if r.rate > 0 {
		stop := c.figureProfiles(self, s, n, r.rate, duration)
		sum, cpu, err := rp.runCPU(n, duration, r.rate, d.thriftd.p.others)
		if perr := stop(); perr != nil && err == nil {
			err = perr
		}
		if err != nil {
			return fmt.Errorf("at %v calls/s: %w", r.rate, err)
		}
		r.rateOps[colDirect], r.rateCPU[colDirect] = sum.OpsPerSec, cpu
	}
	return nil
}

// report lists, for each shape, the requests per call thriftd's store
// sent and the direct client replayed.
func (d *directState) report(shapes []shape19, conns []int) {
	fmt.Printf("\nWhat thriftd's Cassandra store sent the node per call (its statement recorder), which the direct CQL client replays:\n\n")
	for _, s := range shapes {
		rp := d.replays[s.name]
		if rp == nil {
			continue
		}
		var want, wantAll float64
		for _, q := range rp.reqs {
			want += q.perCall
			wantAll += float64(q.Sent+q.Pages+q.Retries) / float64(rp.calls)
		}
		pc := d.perCall[s.name]
		fmt.Printf("- %s (%d calls recorded): thriftd %.2f requests per call (%.2f with further pages and retries); the direct client %.2f (%.2f)\n",
			s.name, rp.calls, want, wantAll, pc[0], pc[1])
		for _, l := range rp.describe() {
			fmt.Printf("  - %s\n", l)
		}
	}
}

// figureProfiles starts -profile's recordings of one figure of t: shape
// s at n connections, at its maximum (rate 0) or at rate calls/s, into
// SHAPE-COLUMN-CONNS[-at-RATE] files (profile.go), and returns what ends
// them; nothing without -profile.
func (c *compareOptions) figureProfiles(t target, s shape19, n int, rate float64, d time.Duration) func() error {
	if c.profiles == "" {
		return func() error { return nil }
	}
	name := fmt.Sprintf("%s-%s-%d", fileName(s.name), strings.ReplaceAll(t.col, ":", "-"), n)
	if rate > 0 {
		name += fmt.Sprintf("-at-%.0f", rate)
	}
	return figureProfiles(c.profiles, name, t.p.admin, append([]int{t.p.serverPid()}, t.p.others...), d)
}
