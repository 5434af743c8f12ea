package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// target is one column's server.
type target struct {
	col   string
	title string
	p     *process
	ks    string
	args  []string // thriftd-stress's interface flags
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
	capture := c.capture
	if o.short {
		capture = min(capture, 500*time.Millisecond)
	}
	var direct *directState
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
		if contains(c.columns, colDirect) {
			count := &driverCount{}
			sess, err := directSession(cql.cluster, count)
			if err != nil {
				return fmt.Errorf("the direct CQL client's session: %w", err)
			}
			defer sess.Close()
			direct = &directState{s: sess, count: count, thriftd: targets[len(targets)-1], replays: map[string]*replay{}}
			targets = append(targets, target{col: colDirect, title: "direct CQL", p: &process{name: "the direct CQL client", pid: os.Getpid(), others: cql.others}})
			fmt.Printf("- direct CQL: a client of the same driver replaying, at the same concurrency, the requests thriftd's Cassandra store sent for each shape, recorded for %v on one connection (its statements per call are listed below the table); its CPU counts the client process and the Cassandra node\n", capture)
		}
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

	if c.profiles != "" {
		var pids []int
		for _, t := range targets {
			pids = append(append(pids, t.p.serverPid()), t.p.others...)
		}
		stop, err := startRecordings(pids)
		if err != nil {
			return fmt.Errorf("-profile: %w", err)
		}
		defer stop()
	}

	// Load and warm each server once (thriftd's two paths share a store).
	loaded := map[*process]bool{}
	for _, t := range targets {
		if loaded[t.p] {
			continue
		}
		loaded[t.p] = true
		if t.col == colNoop || t.col == colDirect {
			continue // nothing to load: the direct client reads thriftd's tables
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
			r := newCompareRow(s.name, n, c.rateFor(s))
			// Each row starts with another column, so that what one
			// server leaves running (compactions, collections) does not
			// always weigh on the same neighbour.
			for k := range targets {
				t := targets[(k+len(table))%len(targets)]
				if t.col == colDirect {
					if err := direct.measure(o, s, n, &r, shapeWarm, duration, capture); err != nil {
						failures = append(failures, fmt.Sprintf("%s, %s, %d connections: %v", t.title, s.name, n, err))
					}
					continue
				}
				if err := measureTarget(o, t, s, n, &r, shapeWarm, duration); err != nil {
					failures = append(failures, err.Error())
				}
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
	printRate(table, targets)
	printFloor(table, targets)
	printRatios(table, targets)
	if direct != nil {
		direct.report(c.chosen(), c.conns)
	}
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
