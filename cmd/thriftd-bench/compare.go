package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// The comparison (-compare): the 19.x request shapes over a 19.x client
// against the real Cassandra 1.2.19 node, thriftd's 19.x path and the 19.x
// no-op server, beside thriftd's 0.6 path for the same shapes on the same
// store, from one run.

// Columns of the comparison table: colReal stands for every real server
// (one column each, named colReal+":"+its label), colCQL is thriftd on the
// Cassandra store.
const (
	colReal = "real"
	col19   = "19"
	colCQL  = "cql"
	col06   = "0.6"
	colNoop = "noop"
)

var compareColumns = []string{colReal, col19, colCQL, col06, colNoop}

type compareOptions struct {
	columns []string
	// reference is the real servers: "start" (the 1.2.19 test node),
	// "production" (production nodes of versions), HOST:PORT[,HOST:PORT]
	// of any Thrift servers, or "off".
	reference, script string
	// versions are the releases -reference production starts.
	versions []string
	// cassandra is the Cassandra cluster of the cql column: "start" (a
	// node of clusterScript) or HOST:PORT[,...] contact points.
	cassandra, clusterScript string
	// partitioner is thriftd's ("" follows the real servers').
	partitioner string
	// duration is each figure's measured time, shapeWarm the time the
	// same shape runs against the same server right before it.
	duration, shapeWarm time.Duration
	rows                int
	// indexRows are the rows of the Indexed family, read by the
	// get_indexed_slices shape.
	indexRows int
	conns     []int
	warm      time.Duration
	profiles  string // directory for thriftd's CPU profiles
	// shapes are the names (up to the first space) of the shapes to
	// run; all when empty.
	shapes []string
}

// chosen are the shapes -shapes selects.
func (c *compareOptions) chosen() []shape19 {
	var out []shape19
	for _, s := range shapes19() {
		name, _, _ := strings.Cut(s.name, " ")
		if len(c.shapes) == 0 || contains(c.shapes, name) {
			out = append(out, s)
		}
	}
	return out
}

func (c *compareOptions) register(fs *flag.FlagSet) (columns, conns *string) {
	columns = fs.String("compare", "real,19,0.6,noop",
		"columns of the 19.x comparison: real (the real servers, see -reference), 19 (thriftd's 19.x path on LevelDB), cql (thriftd's 19.x path on the Cassandra store, see -cassandra-store), 0.6 (thriftd's 0.6 path), noop (the 19.x no-op server); \"none\" skips it")
	fs.StringVar(&c.reference, "reference", "start",
		"the real servers: start (start or reuse the 1.2.19 test node, ByteOrderedPartitioner, with -reference-script); production (start or reuse production nodes of -real, Murmur3Partitioner); HOST:PORT[,HOST:PORT...] (any Thrift servers, one column each); or off (no real column)")
	fs.Func("against", "the same as -reference HOST:PORT[,HOST:PORT...]: compare thriftd with the Thrift servers at these addresses", func(v string) error {
		c.reference = v
		return nil
	})
	fs.Func("real", "releases -reference production starts, comma-separated: 1.2, 2.1, 3.11 (default 1.2)", func(v string) error {
		c.versions = nil
		for _, r := range strings.Split(v, ",") {
			r = strings.TrimSpace(r)
			if _, ok := releases[r]; !ok {
				return fmt.Errorf("unknown release %q: want 1.2, 2.1 or 3.11", r)
			}
			c.versions = append(c.versions, r)
		}
		return nil
	})
	c.versions = []string{"1.2"}
	fs.StringVar(&c.script, "reference-script", "test/cassandra/reference", "the script that starts the real nodes for -reference start and production")
	fs.StringVar(&c.cassandra, "cassandra-store", "start", "the Cassandra cluster of the cql column: start (start or reuse the Cassandra 5 node of -cluster-script whose partitioner matches thriftd's; with -reference production and Murmur3Partitioner, its production node) or HOST:PORT[,...] contact points")
	fs.StringVar(&c.clusterScript, "cluster-script", "test/cassandra/cluster", "the script that starts the Cassandra node of the cql column")
	fs.StringVar(&c.partitioner, "partitioner", "", "thriftd's partitioner in the comparison (a class name); default: the real servers' (OrderPreservingPartitioner for ByteOrderedPartitioner), else Murmur3Partitioner with a cql column, else OrderPreservingPartitioner")
	fs.DurationVar(&c.duration, "compare-duration", 10*time.Second, "measured time of each figure of the comparison")
	fs.DurationVar(&c.shapeWarm, "shape-warm", 10*time.Second, "time each figure's shape runs against its server, at its connection count, right before it is measured")
	fs.IntVar(&c.rows, "compare-rows", 2000, "rows of 100 columns loaded into each server for the comparison's reads")
	fs.IntVar(&c.indexRows, "compare-index-rows", 100_000, "rows loaded into each server's Indexed family (a KEYS index on a column of 100 values) for the get_indexed_slices shape")
	conns = fs.String("compare-conns", "32", "connection counts of the comparison")
	fs.Func("shapes", "the comparison's shapes to run, comma-separated, by call name: get_slice, multiget_slice, get_range_slices, get_paged_slice, insert, batch_mutate, add, get_indexed_slices (default: all)", func(v string) error {
		c.shapes = nil
		for _, name := range strings.Split(v, ",") {
			name = strings.TrimSpace(name)
			known := false
			for _, s := range shapes19() {
				known = known || strings.HasPrefix(s.name, name+" ")
			}
			if !known {
				return fmt.Errorf("unknown shape %q", name)
			}
			c.shapes = append(c.shapes, name)
		}
		return nil
	})
	fs.DurationVar(&c.warm, "warm", 6*time.Second, "time each server is warmed with the 19.x shapes after loading, before the comparison")
	fs.StringVar(&c.profiles, "profile", "", "write thriftd's CPU profile of every comparison figure into this directory (go tool pprof FILE)")
	return columns, conns
}

// parse checks the flags' values once they are parsed; explicit is
// whether -compare was given.
func (c *compareOptions) parse(columns, conns string, explicit bool) error {
	c.columns = nil
	if columns != "none" {
		for _, col := range strings.Split(columns, ",") {
			col = strings.TrimSpace(col)
			if !contains(compareColumns, col) {
				return fmt.Errorf("bad -compare column %q: want some of %s, or none", col, strings.Join(compareColumns, ","))
			}
			if !contains(c.columns, col) && !(col == colReal && c.reference == "off" && !explicit) {
				c.columns = append(c.columns, col)
			}
		}
		if contains(c.columns, colReal) && c.reference == "off" {
			return errors.New("-compare real needs -reference start or HOST:PORT, not off")
		}
	}
	c.conns = nil
	for _, s := range strings.Split(conns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return fmt.Errorf("bad -compare-conns %q", conns)
		}
		c.conns = append(c.conns, n)
	}
	// Made now, so that a directory that cannot be made stops the run
	// before any figure rather than failing every profiled one.
	if c.profiles != "" {
		if err := os.MkdirAll(c.profiles, 0o755); err != nil {
			return fmt.Errorf("-profile: %w", err)
		}
	}
	return nil
}

// releases are the full versions of the reference script's releases.
var releases = map[string]string{"1.2": "1.2.19", "2.1": "2.1.21", "3.11": "3.11.19"}

// realServer is one real server of the comparison.
type realServer struct {
	addr string
	// label names its column: the release, or the address of a server
	// given by -reference HOST:PORT.
	label string
}

// realServers are the real servers' Thrift addresses, their nodes started
// with the reference script for -reference start and production.
func (c *compareOptions) realServers() ([]realServer, error) {
	switch c.reference {
	case "off":
		return nil, nil
	case "start":
		addr, err := runScript(c.script, "start", "1.2", "--partitioner", "byteordered")
		if err != nil {
			return nil, err
		}
		return []realServer{{addr: addr, label: releases["1.2"]}}, nil
	case "production":
		var out []realServer
		for _, v := range c.versions {
			addr, err := runScript(c.script, "start", v, "--partitioner", "murmur3", "--production")
			if err != nil {
				return nil, err
			}
			out = append(out, realServer{addr: addr, label: releases[v]})
		}
		return out, nil
	}
	var out []realServer
	for _, a := range strings.Split(c.reference, ",") {
		out = append(out, realServer{addr: strings.TrimSpace(a), label: strings.TrimSpace(a)})
	}
	return out, nil
}

// runScript runs a node script's command and returns the address it
// printed last.
func runScript(script string, args ...string) (string, error) {
	cmd := exec.Command(script, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %v: %s", script, strings.Join(args, " "), err, errOut.String())
	}
	lines := strings.Fields(out.String())
	if len(lines) == 0 {
		return "", fmt.Errorf("%s %s printed no address", script, strings.Join(args, " "))
	}
	fmt.Fprintf(os.Stderr, "%s %s: serving at %s (%v)\n", script, strings.Join(args, " "), lines[len(lines)-1], time.Since(t0).Round(time.Millisecond))
	return lines[len(lines)-1], nil
}

// thriftdPartitioner is the partitioner thriftd serves the comparison
// with: the first real server's, OrderPreservingPartitioner for
// ByteOrderedPartitioner (the 0.6 partitioner that orders the
// benchmark's ASCII keys the same way).
func (c *compareOptions) thriftdPartitioner(real string) string {
	const pkg = "org.apache.cassandra.dht."
	switch {
	case c.partitioner != "":
		if !strings.Contains(c.partitioner, ".") {
			return pkg + c.partitioner
		}
		return c.partitioner
	case strings.HasSuffix(real, "ByteOrderedPartitioner"):
		return pkg + "OrderPreservingPartitioner"
	case real != "":
		return real
	case contains(c.columns, colCQL):
		return pkg + "Murmur3Partitioner"
	}
	return pkg + "OrderPreservingPartitioner"
}

// clusterFor is the node of the cluster script whose partitioner keeps
// thriftd's order. Beside production reference nodes (reference
// "production", Murmur3Partitioner) it is the cluster script's production
// node, a Cassandra 5 node configured as production runs it, so that
// neither side of the comparison runs handicapped.
func clusterFor(partitioner, reference string) string {
	switch {
	case strings.HasSuffix(partitioner, "RandomPartitioner"):
		return "random"
	case strings.HasSuffix(partitioner, "Murmur3Partitioner") && reference == "production":
		return "production"
	case strings.HasSuffix(partitioner, "Murmur3Partitioner"):
		return "murmur3"
	}
	return "byteordered"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// shape19 is one request shape of the comparison.
type shape19 struct {
	name string
	// args19 are thriftd-stress's for the 19.x client, args06 for the 0.6
	// client doing the same work.
	args19, args06 []string
	// note says how the 0.6 call differs, when it does.
	note string
	// indexed shapes read the Indexed family: -n is its rows, -g the
	// rows that hold one value of its indexed column.
	indexed bool
}

// indexValues is how many values the Indexed family's indexed column
// takes, each in as many rows: one value matches 1% of them.
const indexValues = 100

// args19For are thriftd-stress's arguments for s on the 19.x API over
// rows loaded rows (or the Indexed family's indexRows).
func (s shape19) args19For(rows, indexRows int) []string {
	if !s.indexed {
		return append([]string{"-n", strconv.Itoa(rows)}, s.args19...)
	}
	return append([]string{"-n", strconv.Itoa(indexRows), "-g", strconv.Itoa(max(1, indexRows/indexValues))}, s.args19...)
}

// shapes19 are the comparison's shapes, the reads first: the
// compactions a write figure leaves behind would fall into the next
// figures.
func shapes19() []shape19 {
	read := func(a ...string) []string { return a }
	return []shape19{
		{name: "get_slice (10 of 100 columns)",
			args19: read("-o", "read", "-c", "100", "-slice", "10", "-r"),
			args06: read("-o", "read", "-c", "100", "-slice", "10", "-r")},
		{name: "multiget_slice (10 keys × 10 columns)",
			args19: read("-o", "multiget", "-multiget", "10", "-c", "100", "-slice", "10", "-r"),
			args06: read("-o", "multiget", "-multiget", "10", "-c", "100", "-slice", "10", "-r")},
		{name: "get_range_slices (100 rows × 5 of 100 columns)",
			args19: read("-o", "rangeslice", "-g", "100", "-c", "100", "-slice", "5"),
			args06: read("-o", "rangeslice", "-g", "100", "-c", "100", "-slice", "5")},
		{name: "get_paged_slice (500 columns: 5 rows × 100)",
			args19: read("-o", "paged", "-g", "500", "-c", "100"),
			args06: read("-o", "rangeslice", "-g", "5", "-c", "100", "-slice", "100"),
			note:   "0.6 has no get_paged_slice: get_range_slices of 5 rows × 100 columns"},
		{name: "insert (1 column)",
			args19: read("-o", "insert", "-c", "1", "-cf", "Standard2", "-now"),
			args06: read("-o", "insert", "-c", "1", "-cf", "Standard2", "-now"),
			note:   "0.6: batch_insert of 1 column"},
		{name: "batch_mutate (100 columns)",
			args19: read("-o", "batch", "-c", "100", "-cf", "Standard2", "-now"),
			args06: read("-o", "batch", "-c", "100", "-cf", "Standard2", "-now")},
		// Counters: 0.6 has none, so the 0.6 column is left empty.
		{name: "add (one hot counter)",
			args19: read("-o", "add", "-c", "1", "-cf", "Counters", "-s", "0"),
			note:   "every connection adds 1 to the same counter; 0.6 has no counters"},
		{name: "add (a random counter of the loaded rows' keys)",
			args19: read("-o", "add", "-c", "1", "-cf", "Counters", "-r"),
			note:   "each call adds 1 to the counter of a random row; 0.6 has no counters"},
		// Secondary indexes: 0.6 has none.
		{name: "get_indexed_slices (EQ on a KEYS index: the 1% of rows that match, 2 columns each)",
			args19:  read("-o", "indexed", "-cf", "Indexed", "-index-values", strconv.Itoa(indexValues), "-slice", "2"),
			note:    "every row whose indexed column holds one value (1 of 100, chosen at random) in one call, with 2 of its 6 columns; 0.6 has no secondary indexes",
			indexed: true},
	}
}

// target is one column's server.
type target struct {
	col   string
	title string
	p     *process
	ks    string
	args  []string // thriftd-stress's interface flags
}

// compareRow is one line of the comparison table.
type compareRow struct {
	shape string
	conns int
	ops   map[string]float64
	p99   map[string]float64
	// Server CPU time per call of each column, one figure per server
	// process (thriftd and the Cassandra node for the cql column).
	cpu map[string][]time.Duration
}

// benchKeyspace19 is the keyspace the comparison creates on servers that
// do not declare it; thriftd serves Keyspace1 from its configuration.
const benchKeyspace19 = "ThriftdBench"

func runCompare(o *options, tmp string) error {
	c := &o.compare
	if len(c.columns) == 0 {
		return nil
	}
	fmt.Printf("\n## The 19.x shapes beside Cassandra\n\n")
	valueSize := strconv.Itoa(o.valueSize)
	rows := strconv.Itoa(c.rows)
	duration, shapeWarm := c.duration, c.shapeWarm
	if o.short {
		// Long enough for a freshly started JVM to answer some calls of
		// every shape.
		duration, shapeWarm = 500*time.Millisecond, 0
	}
	var targets []target
	var reals []target
	realPartitioner := ""
	if contains(c.columns, colReal) {
		servers, err := c.realServers()
		if err != nil {
			return err
		}
		for _, r := range servers {
			p := &process{name: "the real server " + r.label, addr: r.addr}
			if h := p.host(); h == "127.0.0.1" || h == "localhost" || h == "::1" {
				p.pid = listenerPid(p.port())
			}
			part, version, err := describe19(p.addr)
			if err != nil {
				return fmt.Errorf("the real server at %s: %w", p.addr, err)
			}
			fmt.Printf("- real %s: Cassandra at %s, API %s, %s%s\n", r.label, p.addr, version, part, realConfig(c.reference))
			if realPartitioner == "" {
				realPartitioner = part
			} else if part != realPartitioner {
				fmt.Fprintf(os.Stderr, "thriftd-bench: warning: the real servers' partitioners differ: %s, %s\n", realPartitioner, part)
			}
			reals = append(reals, target{col: colReal + ":" + r.label, title: "real " + r.label, p: p, ks: benchKeyspace19, args: []string{"-api", "19"}})
		}
	}
	partitioner := c.thriftdPartitioner(realPartitioner)
	var srv *process
	if contains(c.columns, col19) || contains(c.columns, col06) {
		conf, err := withPartitioner(o.config, tmp, partitioner)
		if err != nil {
			return err
		}
		// -api auto: the 0.6 load generator connects unframed and the
		// 19.x one framed, so each fresh connection is answered in its
		// client's API.
		srv, err = startThriftd(o.thriftd, conf, filepath.Join(tmp, "thriftd19"), "-api", "auto")
		if err != nil {
			return err
		}
		defer srv.stop()
	}
	targets = append(targets, reals...)
	if contains(c.columns, col19) {
		targets = append(targets, target{col: col19, title: "thriftd 19.x", p: srv, ks: "Keyspace1", args: []string{"-api", "19"}})
	}
	if contains(c.columns, colCQL) {
		cql, stop, err := startCQLThriftd(o, tmp, partitioner)
		if err != nil {
			return err
		}
		defer stop()
		targets = append(targets, target{col: colCQL, title: "thriftd on C* 5", p: cql, ks: "Keyspace1", args: []string{"-api", "19"}})
	}
	if contains(c.columns, col06) {
		targets = append(targets, target{col: col06, title: "thriftd 0.6", p: srv, ks: "Keyspace1"})
	}
	if contains(c.columns, colNoop) {
		noop, err := startNoop("-serve-noop19", "19.x no-op", o.valueSize)
		if err != nil {
			return err
		}
		defer noop.stop()
		targets = append(targets, target{col: colNoop, title: "no-op 19.x", p: noop, ks: "Keyspace1", args: []string{"-api", "19"}})
	}
	if srv != nil {
		fmt.Printf("- thriftd: %s with %s, LevelDB store, CommitLogSync periodic\n", o.config, partitioner)
	}
	indexing := false
	for _, s := range c.chosen() {
		indexing = indexing || s.indexed
	}
	fmt.Printf("- data: %d rows of 100 columns of %d bytes in Standard1 (BytesType), loaded by 19.x batch_mutate; writes go to Standard2 (UTF8Type); each server warmed %v after loading; each figure's shape run %v against its server right before it is measured for %v; shapes in the order of the table (reads first, then writes, counters and the index)\n",
		c.rows, o.valueSize, c.warm, shapeWarm, duration)
	if indexing {
		fmt.Printf("- indexed: %d rows of 5 columns of %d bytes and column %q, KEYS-indexed, holding one of %d values (each in %d rows), in Indexed (BytesType), loaded by 19.x batch_mutate\n",
			c.indexRows, o.valueSize, "idx", indexValues, c.indexRows/indexValues)
	}
	fmt.Println()

	// Load and warm each server once (thriftd's two paths share a store).
	loaded := map[*process]bool{}
	for _, t := range targets {
		if loaded[t.p] {
			continue
		}
		loaded[t.p] = true
		if t.col == colNoop {
			continue // nothing to load
		}
		{
			if err := ensureSchema19(t.p.addr, t.ks); err != nil {
				return fmt.Errorf("%s: %w", t.p.name, err)
			}
		}
		t0 := time.Now()
		// The Cassandra store's node, a test node shared with other work,
		// times writes out after 2 s: it is loaded more gently.
		loaders := "8"
		if t.col == colCQL {
			loaders = "2"
		}
		if _, err := stress(o.stress, t.p, "-api", "19", "-keyspace", t.ks, "-o", "batch", "-c", "100", "-n", rows, "-t", loaders, "-S", valueSize, "-now"); err != nil {
			return err
		}
		if indexing {
			// A run before may have left rows of another count.
			if err := truncate19(t.p.addr, t.ks, "Indexed"); err != nil {
				return fmt.Errorf("%s: %w", t.p.name, err)
			}
			if _, err := stress(o.stress, t.p, "-api", "19", "-keyspace", t.ks, "-o", "batch", "-c", "5", "-cf", "Indexed",
				"-index-values", strconv.Itoa(indexValues), "-n", strconv.Itoa(c.indexRows), "-t", loaders, "-S", valueSize, "-now"); err != nil {
				return err
			}
		}
		load := time.Since(t0)
		t0 = time.Now()
		if c.warm > 0 && t.col != colNoop {
			for _, s := range shapes19() {
				if s.indexed && !indexing {
					continue // nothing loaded to read
				}
				w := c.warm / time.Duration(len(shapes19()))
				a := append([]string{"-api", "19", "-keyspace", t.ks, "-t", "8", "-S", valueSize, "-duration", w.String()}, s.args19For(c.rows, c.indexRows)...)
				// A cold node may finish no call in a short warm-up,
				// which is no failure; an error is.
				if s, err := stress(o.stress, t.p, a...); err != nil && (s == nil || s.Errors > 0) {
					return err
				}
			}
		}
		loaded := fmt.Sprintf("%d rows of 100 columns", c.rows)
		if indexing {
			loaded += fmt.Sprintf(" and %d indexed rows", c.indexRows)
		}
		fmt.Fprintf(os.Stderr, "%s: loaded %s in %v, warmed in %v\n", t.p.name, loaded, load.Round(time.Millisecond), time.Since(t0).Round(time.Millisecond))
	}

	var table []compareRow
	var failures []string
	for _, s := range c.chosen() {
		for _, n := range c.conns {
			r := compareRow{shape: s.name, conns: n, ops: map[string]float64{}, p99: map[string]float64{}, cpu: map[string][]time.Duration{}}
			// Each row starts with another column, so that what one
			// server leaves running (compactions, collections) does not
			// always weigh on the same neighbour.
			for k := range targets {
				t := targets[(k+len(table))%len(targets)]
				shape := s.args19For(c.rows, c.indexRows)
				if t.col == col06 {
					if s.args06 == nil {
						continue // a shape 0.6 cannot make
					}
					shape = append([]string{"-n", rows}, s.args06...)
				}
				if shapeWarm > 0 {
					a := append(append([]string{"-keyspace", t.ks, "-t", strconv.Itoa(n), "-S", valueSize, "-duration", shapeWarm.String()}, t.args...), shape...)
					if _, err := stress(o.stress, t.p, a...); err != nil {
						// One server failing a shape (a timeout of an
						// overloaded node) leaves its cell empty, not the
						// whole table.
						failures = append(failures, fmt.Sprintf("%s, %s, %d connections, warming: %v", t.title, s.name, n, err))
						continue
					}
				}
				a := append(append([]string{"-keyspace", t.ks, "-t", strconv.Itoa(n), "-S", valueSize, "-duration", duration.String()}, t.args...), shape...)
				var stopProfile func() error
				if c.profiles != "" && t.p.admin != "" {
					name := fmt.Sprintf("%s-%s-%d.pprof", fileName(s.name), t.col, n)
					stopProfile = profileCPU(t.p.admin, duration, filepath.Join(c.profiles, name))
				}
				var sum *summary
				var cpu []time.Duration
				var err error
				if t.p.serverPid() != 0 {
					sum, cpu, err = stressCPU(o.stress, t.p, a...)
				} else {
					sum, err = stress(o.stress, t.p, a...)
				}
				if stopProfile != nil {
					if perr := stopProfile(); perr != nil && err == nil {
						err = perr
					}
				}
				if err != nil {
					failures = append(failures, fmt.Sprintf("%s, %s, %d connections: %v", t.title, s.name, n, err))
					continue
				}
				r.ops[t.col], r.p99[t.col], r.cpu[t.col] = sum.OpsPerSec, sum.P99Ms, cpu
			}
			fmt.Fprintf(os.Stderr, "%-48s %3d conns:", s.name, n)
			for _, t := range targets {
				fmt.Fprintf(os.Stderr, "  %s %8.0f", t.col, r.ops[t.col])
			}
			fmt.Fprintln(os.Stderr)
			table = append(table, r)
		}
	}
	printCompare(table, targets)
	printRatios(table, targets)
	if len(failures) > 0 {
		fmt.Printf("\nFigures that failed (their cells are empty):\n\n")
		for _, f := range failures {
			fmt.Printf("- %s\n", f)
		}
	}
	for _, s := range c.chosen() {
		if s.note != "" {
			fmt.Printf("- %s: %s.\n", s.name, s.note)
		}
	}
	return nil
}

// realConfig describes the real servers' configuration.
func realConfig(reference string) string {
	switch reference {
	case "start":
		return " (the test node of test/cassandra/reference: client JIT, serial GC, 320 MB heap, 4 concurrent reads and writes)"
	case "production":
		return " (a production node of test/cassandra/reference --production: full JIT, G1, 2 GB heap, -ea, 32 concurrent reads and writes, the release's defaults)"
	}
	return ""
}

func printCompare(table []compareRow, targets []target) {
	var cols []target
	for _, c := range compareColumns {
		for _, t := range targets {
			if t.col == c || strings.HasPrefix(t.col, c+":") {
				cols = append(cols, t)
			}
		}
	}
	has := func(col string) bool {
		for _, t := range cols {
			if t.col == col {
				return true
			}
		}
		return false
	}
	head := "| shape | conns |"
	line := "|---|---:|"
	for _, c := range cols {
		head += " " + c.title + " ops/s (p99 ms) |"
		line += "---:|"
	}
	type ratio struct{ title, num, den string }
	var ratios []ratio
	for _, r := range []ratio{{"19.x / 0.6", col19, col06}, {"19.x / no-op", col19, colNoop}} {
		if has(r.num) && has(r.den) {
			ratios = append(ratios, r)
			head += " " + r.title + " |"
			line += "---:|"
		}
	}
	// Server CPU time per call of every column whose process is known:
	// steadier than throughput on a shared machine.
	var cpuCols []string
	var cpuTitles []string
	for _, c := range cols {
		if len(table) > 0 && len(table[0].cpu[c.col]) > 0 {
			cpuCols = append(cpuCols, c.col)
			title := strings.TrimPrefix(strings.TrimPrefix(c.title, "thriftd "), "real ")
			if c.col == colCQL {
				title += " (thriftd+C*)"
			}
			cpuTitles = append(cpuTitles, title)
		}
	}
	if len(cpuCols) > 0 {
		head += " server CPU µs/call " + strings.Join(cpuTitles, " / ") + " |"
		line += "---:|"
	}
	fmt.Println(head)
	fmt.Println(line)
	for _, r := range table {
		fmt.Printf("| %s | %d |", r.shape, r.conns)
		for _, c := range cols {
			if _, ok := r.ops[c.col]; !ok {
				fmt.Printf(" — |")
				continue
			}
			fmt.Printf(" %.0f (%.2f) |", r.ops[c.col], r.p99[c.col])
		}
		for _, q := range ratios {
			if r.ops[q.den] == 0 {
				fmt.Printf(" — |")
				continue
			}
			fmt.Printf(" %.0f%% |", 100*r.ops[q.num]/r.ops[q.den])
		}
		if len(cpuCols) > 0 {
			var v []string
			for _, c := range cpuCols {
				var parts []string
				for _, d := range r.cpu[c] {
					parts = append(parts, fmt.Sprintf("%.0f", micros(d)))
				}
				if len(parts) == 0 {
					parts = []string{"—"}
				}
				v = append(v, strings.Join(parts, "+"))
			}
			fmt.Printf(" %s |", strings.Join(v, " / "))
		}
		fmt.Println()
	}
}

// printRatios prints, for every real server, the throughput of thriftd's
// columns as a fraction of the real server's and the real server's CPU
// time per call over theirs (all of their processes').
func printRatios(table []compareRow, targets []target) {
	var reals, ours []target
	for _, t := range targets {
		switch {
		case strings.HasPrefix(t.col, colReal+":"):
			reals = append(reals, t)
		case t.col == col19 || t.col == colCQL:
			ours = append(ours, t)
		}
	}
	if len(reals) == 0 || len(ours) == 0 {
		return
	}
	fmt.Printf("\nthriftd beside the real servers: throughput thriftd / real, and CPU per call real / thriftd (above 1: thriftd costs less)\n\n")
	head := "| shape | conns |"
	line := "|---|---:|"
	for _, o := range ours {
		for _, rl := range reals {
			head += fmt.Sprintf(" %s / %s ops | %s CPU / %s CPU |", o.title, rl.title, rl.title, o.title)
			line += "---:|---:|"
		}
	}
	fmt.Println(head)
	fmt.Println(line)
	sum := func(ds []time.Duration) time.Duration {
		var t time.Duration
		for _, d := range ds {
			t += d
		}
		return t
	}
	for _, r := range table {
		fmt.Printf("| %s | %d |", r.shape, r.conns)
		for _, o := range ours {
			for _, rl := range reals {
				if r.ops[rl.col] > 0 && r.ops[o.col] > 0 {
					fmt.Printf(" %.2f |", r.ops[o.col]/r.ops[rl.col])
				} else {
					fmt.Printf(" — |")
				}
				if c := sum(r.cpu[o.col]); c > 0 && sum(r.cpu[rl.col]) > 0 {
					fmt.Printf(" %.2f |", float64(sum(r.cpu[rl.col]))/float64(c))
				} else {
					fmt.Printf(" — |")
				}
			}
		}
		fmt.Println()
	}
}

// fileName turns a shape's name into a file name's part.
func fileName(s string) string {
	s, _, _ = strings.Cut(s, " ")
	return strings.ReplaceAll(s, "_", "-")
}

// withPartitioner writes a copy of the storage-conf.xml config into dir
// with partitioner (a class name) and returns its path.
func withPartitioner(config, dir, partitioner string) (string, error) {
	raw, err := os.ReadFile(config)
	if err != nil {
		return "", err
	}
	s := string(raw)
	start := strings.Index(s, "<Partitioner>")
	end := strings.Index(s, "</Partitioner>")
	if start < 0 || end < start {
		return "", fmt.Errorf("%s: no <Partitioner> to replace", config)
	}
	s = s[:start] + "<Partitioner>" + partitioner + s[end:]
	base := partitioner[strings.LastIndex(partitioner, ".")+1:]
	out := filepath.Join(dir, "storage-conf-"+base+".xml")
	if err := os.WriteFile(out, []byte(s), 0o644); err != nil {
		return "", err
	}
	return out, nil
}

// dial19 opens a 19.x connection to addr.
func dial19(addr string) (*cassandra19.CassandraClient, thrift.TTransport, error) {
	cfg := &thrift.TConfiguration{ConnectTimeout: 10 * time.Second, SocketTimeout: 60 * time.Second}
	t := thrift.NewTFramedTransportConf(thrift.NewTSocketConf(addr, cfg), cfg)
	if err := t.Open(); err != nil {
		return nil, nil, err
	}
	return cassandra19.NewCassandraClientFactory(t, thrift.NewTBinaryProtocolFactoryConf(cfg)), t, nil
}

// describe19 returns the partitioner and API version a 19.x server
// reports.
func describe19(addr string) (partitioner, version string, err error) {
	c, t, err := dial19(addr)
	if err != nil {
		return "", "", err
	}
	defer t.Close()
	ctx := context.Background()
	if partitioner, err = c.DescribePartitioner(ctx); err != nil {
		return "", "", err
	}
	version, err = c.DescribeVersion(ctx)
	return partitioner, version, err
}

// ensureSchema19 makes sure keyspace ks with the benchmark's column
// families exists on the server at addr, creating what is missing through
// system_add_keyspace and system_add_column_family.
func ensureSchema19(addr, ks string) error {
	c, t, err := dial19(addr)
	if err != nil {
		return err
	}
	defer t.Close()
	ctx := context.Background()
	counters := cfDef19(ks, "Counters", "BytesType")
	counters.DefaultValidationClass = thrift.StringPtr("CounterColumnType")
	indexed := cfDef19(ks, "Indexed", "BytesType")
	indexType := cassandra19.IndexType_KEYS
	indexed.ColumnMetadata = []*cassandra19.ColumnDef{{Name: []byte("idx"), ValidationClass: "BytesType",
		IndexType: &indexType, IndexName: thrift.StringPtr("Indexed_idx")}}
	families := []*cassandra19.CfDef{cfDef19(ks, "Standard1", "BytesType"), cfDef19(ks, "Standard2", "UTF8Type"), counters, indexed}
	def, err := c.DescribeKeyspace(ctx, ks)
	var nf *cassandra19.NotFoundException
	if errors.As(err, &nf) {
		rf := int32(1)
		_, err = c.SystemAddKeyspace(ctx, &cassandra19.KsDef{Name: ks, StrategyClass: "org.apache.cassandra.locator.SimpleStrategy",
			StrategyOptions: map[string]string{"replication_factor": "1"}, ReplicationFactor: &rf, CfDefs: families, DurableWrites: true})
		if err != nil {
			return fmt.Errorf("system_add_keyspace %s: %w", ks, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("describe_keyspace %s: %w", ks, err)
	}
	for _, f := range families {
		found := false
		for _, d := range def.CfDefs {
			found = found || d.Name == f.Name
		}
		if !found {
			if err := c.SetKeyspace(ctx, ks); err != nil {
				return err
			}
			if _, err := c.SystemAddColumnFamily(ctx, f); err != nil {
				return fmt.Errorf("system_add_column_family %s.%s: %w", ks, f.Name, err)
			}
		}
	}
	return nil
}

// truncate19 empties column family cf of keyspace ks on the server at
// addr.
func truncate19(addr, ks, cf string) error {
	c, t, err := dial19(addr)
	if err != nil {
		return err
	}
	defer t.Close()
	ctx := context.Background()
	if err := c.SetKeyspace(ctx, ks); err != nil {
		return err
	}
	if err := c.Truncate(ctx, cf); err != nil {
		return fmt.Errorf("truncate %s.%s: %w", ks, cf, err)
	}
	return nil
}

func cfDef19(ks, name, comparator string) *cassandra19.CfDef {
	d := cassandra19.NewCfDef()
	d.Keyspace, d.Name, d.ComparatorType = ks, name, comparator
	return d
}

// profileCPU starts a CPU profile of thriftd for d on its admin endpoint;
// the returned function waits for it and writes it to file.
func profileCPU(admin string, d time.Duration, file string) func() error {
	done := make(chan error, 1)
	go func() {
		secs := max(1, int(d.Round(time.Second)/time.Second))
		resp, err := (&http.Client{Timeout: d + time.Minute}).Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", admin, secs))
		if err != nil {
			done <- err
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			done <- fmt.Errorf("CPU profile: %s", resp.Status)
			return
		}
		f, err := os.Create(file)
		if err == nil {
			_, err = io.Copy(f, resp.Body)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		done <- err
	}()
	return func() error { return <-done }
}
