package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
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
	// colDirect is the direct CQL client replaying what the cql column's
	// thriftd sends (directcql.go).
	colDirect = "direct"
	col06     = "0.6"
	colNoop   = "noop"
)

var compareColumns = []string{colReal, col19, colCQL, colDirect, col06, colNoop}

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
	profiles  string // directory for the figures' profiles (profile.go)
	// storage is the production node's memtables and sstables (-cassandra-storage).
	storage string
	// capture is how long thriftd's requests are recorded for each shape
	// of the direct column.
	capture time.Duration
	// rate, when positive, is the fixed rate (calls per second, open
	// loop) every column is also measured at; rates overrides it for the
	// shapes named (by call name), whose maxima differ a hundredfold.
	rate  float64
	rates map[string]float64
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
		"columns of the 19.x comparison: real (the real servers, see -reference), 19 (thriftd's 19.x path on LevelDB), cql (thriftd's 19.x path on the Cassandra store, see -cassandra-store), direct (the direct CQL client: the same driver replaying the requests the cql column's thriftd sends for each shape, read from thriftd's statement recorder; needs cql), 0.6 (thriftd's 0.6 path), noop (the 19.x no-op server); \"none\" skips it")
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
	fs.Func("cassandra-storage", "the memtables and sstables of the production node -cassandra-store start uses: default (Cassandra 5.0's defaults) or trie (trie memtables and BTI sstables; the cluster script's THRIFTD_CASSANDRA_PRODUCTION_STORAGE)", func(v string) error {
		if v != "default" && v != "trie" {
			return fmt.Errorf("want default or trie, not %q", v)
		}
		c.storage = v
		return os.Setenv("THRIFTD_CASSANDRA_PRODUCTION_STORAGE", v)
	})
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
			if !knownShape(name) {
				return fmt.Errorf("unknown shape %q", name)
			}
			c.shapes = append(c.shapes, name)
		}
		return nil
	})
	fs.DurationVar(&c.capture, "capture", 5*time.Second, "how long the direct column records, on one connection, the requests thriftd on the Cassandra store sends for each shape")
	fs.Func("rate", "also measure every column at a fixed rate, in calls per second (open loop: thriftd-stress -rate), below every server's maximum: CPU per call at one offered rate, beside each server's maximum. R for every shape, or R,SHAPE=R,... with rates of their own for the shapes named by call name, e.g. 3000,get_range_slices=300,get_indexed_slices=50 (default: maximum only)", c.parseRate)
	fs.DurationVar(&c.warm, "warm", 3*time.Minute, "time each server is warmed with the 19.x shapes after loading, before the comparison: a JVM reaches its steady JIT and GC in minutes, as a production node runs (-short: about a second)")
	fs.StringVar(&c.profiles, "profile", "", "write, for every comparison figure, at its maximum and at -rate, thriftd's CPU profile (SHAPE-COLUMN-CONNS[-at-RATE].pprof: go tool pprof FILE) and a JDK Flight Recorder recording of each Java process of the column, a real node or the Cassandra node of the cql and direct columns (...-PID.jfr: jfr print --events jdk.ExecutionSample FILE), into this directory")
	return columns, conns
}

// parseRate reads -rate: a rate for every shape, then SHAPE=R pairs.
func (c *compareOptions) parseRate(v string) error {
	c.rate, c.rates = 0, nil
	for i, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		name, num, named := strings.Cut(part, "=")
		if !named {
			num = name
		}
		r, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || r <= 0 {
			return fmt.Errorf("bad rate %q: want calls per second above 0", part)
		}
		switch {
		case !named && i == 0:
			c.rate = r
		case !named:
			return fmt.Errorf("bad rate %q: only the first rate may name no shape", part)
		default:
			name = strings.TrimSpace(name)
			if !knownShape(name) {
				return fmt.Errorf("unknown shape %q in -rate", name)
			}
			if c.rates == nil {
				c.rates = map[string]float64{}
			}
			c.rates[name] = r
		}
	}
	return nil
}

// rateFor is the fixed rate shape s is measured at (0: none).
func (c *compareOptions) rateFor(s shape19) float64 {
	name, _, _ := strings.Cut(s.name, " ")
	if r, ok := c.rates[name]; ok {
		return r
	}
	return c.rate
}

// knownShape is whether name is the call name of a comparison shape.
func knownShape(name string) bool {
	for _, s := range shapes19() {
		if strings.HasPrefix(s.name, name+" ") {
			return true
		}
	}
	return false
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
		if contains(c.columns, colDirect) && !contains(c.columns, colCQL) {
			return errors.New("-compare direct replays what the cql column's thriftd sends: it needs cql too")
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
