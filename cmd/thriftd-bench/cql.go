package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	mrand "math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// The CQL benchmark (-cassandra HOST:PORT[,...]): thriftd storing in a
// Cassandra cluster, loaded by thriftd-stress, beside the ceiling a proxy
// can reach, a Go client issuing the statements thriftd's CQL store issues
// for the same request, with the same driver, straight to the cluster.
// Both run at the same concurrency on the same tables (thriftd creates
// them; the direct client reads the rows thriftd loaded), one after the
// other for each operation.

// cqlOp is one request shape done directly in CQL.
type cqlOp struct {
	name string
	// args are thriftd-stress's for this shape (as in operations).
	args []string
	// do is the CQL thriftd's store issues for one such request.
	do func(ctx context.Context, d *direct, rng *mrand.Rand) error
}

// direct is the direct CQL client and the tables it works on.
type direct struct {
	s          *gocql.Session
	read       string // "ks"."Standard1", the preloaded rows
	write      string // "ks"."Standard2"
	keys       [][]byte
	value      []byte
	conc       int // thriftd's per-request concurrency for multi-row reads
	columnSeed atomic.Uint64
}

func (d *direct) key(rng *mrand.Rand) []byte { return d.keys[rng.IntN(len(d.keys))] }

// slice is get_slice's statement: the first count columns of a row.
func (d *direct) slice(ctx context.Context, key []byte, count int) error {
	iter := d.s.Query(`SELECT column1, value, writetime(value) FROM `+d.read+` WHERE key = ? LIMIT `+strconv.Itoa(count), key).
		WithContext(ctx).PageSize(5000).Idempotent(true).Iter()
	var name, value []byte
	var ts int64
	n := 0
	for iter.Scan(&name, &value, &ts) {
		n++
	}
	if err := iter.Close(); err != nil {
		return err
	}
	if n != count {
		return fmt.Errorf("read %d columns, want %d", n, count)
	}
	return nil
}

// slices reads rows as thriftd's store does: one query per row, at most
// d.conc at once.
func (d *direct) slices(ctx context.Context, keys [][]byte, count int) error {
	var wg sync.WaitGroup
	errs := make([]error, len(keys))
	sem := make(chan struct{}, d.conc)
	for i, k := range keys {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = d.slice(ctx, k, count)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *direct) insert(ctx context.Context, key []byte, columns int) error {
	ts := time.Now().UnixMicro()
	stmt := `INSERT INTO ` + d.write + ` (key, column1, value) VALUES (?, ?, ?) USING TIMESTAMP ?`
	if columns == 1 {
		return d.s.Query(stmt, key, []byte("c0"), d.value, ts).WithContext(ctx).Idempotent(true).Exec()
	}
	b := d.s.Batch(gocql.UnloggedBatch).WithContext(ctx)
	for i := 0; i < columns; i++ {
		b.Query(stmt, key, []byte("c"+strconv.Itoa(i)), d.value, ts)
	}
	return b.Exec()
}

func cqlOperations() []cqlOp {
	return []cqlOp{
		{"insert (1 column)", []string{"-o", "insert", "-c", "1", "-cf", "Standard2", "-now"},
			func(ctx context.Context, d *direct, rng *mrand.Rand) error {
				return d.insert(ctx, []byte("w"+strconv.FormatUint(d.columnSeed.Add(1), 10)), 1)
			}},
		{"get_slice (10 of 100 columns)", []string{"-o", "read", "-c", "100", "-slice", "10", "-r"},
			func(ctx context.Context, d *direct, rng *mrand.Rand) error { return d.slice(ctx, d.key(rng), 10) }},
		{"multiget_slice (10 keys × 10 columns)", []string{"-o", "multiget", "-multiget", "10", "-c", "100", "-slice", "10", "-r"},
			func(ctx context.Context, d *direct, rng *mrand.Rand) error {
				keys := make([][]byte, 10)
				for i := range keys {
					keys[i] = d.key(rng)
				}
				return d.slices(ctx, keys, 10)
			}},
		{"batch_mutate (100 columns)", []string{"-o", "batch", "-c", "100", "-cf", "Standard2", "-now"},
			func(ctx context.Context, d *direct, rng *mrand.Rand) error {
				return d.insert(ctx, []byte("b"+strconv.FormatUint(d.columnSeed.Add(1), 10)), 100)
			}},
		{"get_range_slices (100 rows × 10 columns)", []string{"-o", "rangeslice", "-g", "100", "-c", "100", "-slice", "10"},
			func(ctx context.Context, d *direct, rng *mrand.Rand) error {
				// The keys from a random row's token on, then each row's slice.
				iter := d.s.Query(`SELECT DISTINCT key FROM `+d.read+` WHERE token(key) >= token(?)`, d.key(rng)).
					WithContext(ctx).PageSize(100).Idempotent(true).Iter()
				var keys [][]byte
				var k []byte
				for len(keys) < 100 && iter.Scan(&k) {
					keys = append(keys, k)
					k = nil
				}
				if err := iter.Close(); err != nil {
					return err
				}
				if len(keys) == 0 {
					return fmt.Errorf("range read found no rows")
				}
				return d.slices(ctx, keys, 10)
			}},
	}
}

// runDirect runs op from conns goroutines for dur and returns its rate.
func runDirect(d *direct, op cqlOp, conns int, dur time.Duration) (float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), dur+time.Minute)
	defer cancel()
	var ops atomic.Int64
	var firstErr atomic.Value
	deadline := time.Now().Add(dur)
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < conns; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := mrand.New(mrand.NewPCG(uint64(c), uint64(start.UnixNano())))
			for time.Now().Before(deadline) {
				if err := op.do(ctx, d, rng); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				ops.Add(1)
			}
		}()
	}
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		return 0, err
	}
	return float64(ops.Load()) / time.Since(start).Seconds(), nil
}

// runCQL is the CQL benchmark: thriftd on the cluster at points beside
// direct CQL, at each connection count.
func runCQL(o *options, points string) error {
	b := make([]byte, 4)
	rand.Read(b)
	prefix := "bench" + hex.EncodeToString(b) + "_"
	command := o.command
	if command == "" {
		command = strings.Join(os.Args, " ")
	}
	fmt.Printf("# thriftd on Cassandra beside direct CQL\n\n%s\n- cluster: %s, keyspace prefix %s\n\n", machine(command), points, prefix)

	srv, err := startThriftd(o.thriftd, o.config, "", "-cassandra", points, "-cassandra-prefix", prefix)
	if err != nil {
		return err
	}
	defer srv.stop()
	cluster := gocql.NewCluster(strings.Split(points, ",")...)
	cluster.Consistency = gocql.One
	cluster.Timeout = 10 * time.Second
	s, err := cluster.CreateSession()
	if err != nil {
		return fmt.Errorf("direct CQL session: %w", err)
	}
	defer s.Close()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if err := s.Query(`DROP KEYSPACE IF EXISTS "` + prefix + `Keyspace1"`).WithContext(ctx).Exec(); err != nil {
			fmt.Fprintf(os.Stderr, "dropping %sKeyspace1: %v\n", prefix, err)
		}
	}()

	t0 := time.Now()
	n := strconv.Itoa(o.keys)
	if _, err := stress(o.stress, srv, "-o", "batch", "-c", "100", "-n", n, "-t", "8", "-S", strconv.Itoa(o.valueSize), "-now"); err != nil {
		return err
	}
	ks := `"` + prefix + `Keyspace1"`
	d := &direct{s: s, read: ks + `."Standard1"`, write: ks + `."Standard2"`, value: make([]byte, o.valueSize), conc: 16}
	iter := s.Query(`SELECT DISTINCT key FROM ` + d.read).PageSize(5000).Iter()
	var k []byte
	for iter.Scan(&k) {
		d.keys = append(d.keys, k)
		k = nil
	}
	if err := iter.Close(); err != nil {
		return fmt.Errorf("listing the loaded rows: %w", err)
	}
	if len(d.keys) != o.keys {
		return fmt.Errorf("thriftd-stress loaded %d rows, want %d", len(d.keys), o.keys)
	}
	fmt.Fprintf(os.Stderr, "loaded %d rows of 100 columns through thriftd in %v\n", o.keys, time.Since(t0).Round(time.Millisecond))

	fmt.Printf("| operation | conns | thriftd ops/s | thriftd p99 ms | direct CQL ops/s | thriftd / direct CQL |\n")
	fmt.Printf("|---|---:|---:|---:|---:|---:|\n")
	for _, op := range cqlOperations() {
		for _, c := range o.conns {
			args := append([]string{"-n", n, "-t", strconv.Itoa(c), "-S", strconv.Itoa(o.valueSize), "-duration", o.duration.String()}, op.args...)
			th, err := stress(o.stress, srv, args...)
			if err != nil {
				return fmt.Errorf("%s through thriftd: %w", op.name, err)
			}
			// A first pass prepares the statements and warms the node's
			// caches for them, as thriftd's own run just did.
			if _, err := runDirect(d, op, c, min(o.duration/3, 2*time.Second)); err != nil {
				return fmt.Errorf("%s in direct CQL: %w", op.name, err)
			}
			dr, err := runDirect(d, op, c, o.duration)
			if err != nil {
				return fmt.Errorf("%s in direct CQL: %w", op.name, err)
			}
			fmt.Fprintf(os.Stderr, "%-44s %3d conns: thriftd %7.0f ops/s  direct CQL %7.0f  %3.0f%%\n", op.name, c, th.OpsPerSec, dr, 100*th.OpsPerSec/dr)
			fmt.Printf("| %s | %d | %.0f | %.2f | %.0f | %.0f%% |\n", op.name, c, th.OpsPerSec, th.P99Ms, dr, 100*th.OpsPerSec/dr)
		}
	}
	_, peak := srv.memory()
	fmt.Printf("\nthriftd peak RSS (VmHWM): %.0f MB\n", float64(peak)/(1<<20))
	return nil
}

// startCQLThriftd starts the comparison's cql column: a thriftd with
// partitioner on the Cassandra store, in a keyspace of its own on the
// cluster of -cassandra-store (started with -cluster-script when it is
// "start"). Its process counts the CPU time of the Cassandra node when
// that runs on this machine. stop stops thriftd and drops its keyspace.
func startCQLThriftd(o *options, tmp, partitioner string) (p *process, stop func(), err error) {
	c := &o.compare
	points := c.cassandra
	if points == "start" {
		if points, err = runScript(c.clusterScript, "start", clusterFor(partitioner, c.reference)); err != nil {
			return nil, nil, err
		}
	}
	conf, err := withPartitioner(o.config, tmp, partitioner)
	if err != nil {
		return nil, nil, err
	}
	b := make([]byte, 4)
	rand.Read(b)
	prefix := "bench" + hex.EncodeToString(b) + "_"
	srv, err := startThriftd(o.thriftd, conf, "", "-api", "19.x", "-cassandra", points, "-cassandra-prefix", prefix)
	if err != nil {
		return nil, nil, err
	}
	srv.name = "thriftd on Cassandra"
	srv.cluster = points
	var nodes []string
	for _, pt := range strings.Split(points, ",") {
		node := &process{addr: strings.TrimSpace(pt)}
		if h := node.host(); h == "127.0.0.1" || h == "localhost" || h == "::1" {
			if pid := listenerPid(node.port()); pid != 0 {
				srv.others = append(srv.others, pid)
				nodes = append(nodes, fmt.Sprintf("pid %d", pid))
			}
		}
	}
	storage := ""
	if c.cassandra == "start" && clusterFor(partitioner, c.reference) == "production" {
		storage = ", the production node's storage: " + cmp.Or(os.Getenv("THRIFTD_CASSANDRA_PRODUCTION_STORAGE"), "default") + " (THRIFTD_CASSANDRA_PRODUCTION_STORAGE)"
	}
	fmt.Printf("- thriftd on C* 5: %s with %s, the Cassandra store on %s (keyspace %sKeyspace1; its server CPU counts thriftd and the Cassandra node on this machine: %s%s)\n",
		o.config, partitioner, points, prefix, strings.Join(nodes, ", "), storage)
	stop = func() {
		srv.stop()
		cluster := gocql.NewCluster(strings.Split(points, ",")...)
		cluster.Timeout = 60 * time.Second
		s, err := cluster.CreateSession()
		if err != nil {
			fmt.Fprintf(os.Stderr, "dropping %sKeyspace1: %v\n", prefix, err)
			return
		}
		defer s.Close()
		if err := s.Query(`DROP KEYSPACE IF EXISTS "` + prefix + `Keyspace1"`).Exec(); err != nil {
			fmt.Fprintf(os.Stderr, "dropping %sKeyspace1: %v\n", prefix, err)
		}
	}
	return srv, stop, nil
}
