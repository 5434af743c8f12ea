package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// The CQL benchmark (-cassandra HOST:PORT[,...]): thriftd storing in a
// Cassandra cluster, loaded by thriftd-stress, beside the ceiling a proxy
// can reach: the direct CQL client (directcql.go) replaying the requests
// thriftd's store sent for the same calls, read from its statement
// recorder, with the same driver, straight to the cluster. Both run at
// the same concurrency on the same tables, one after the other for each
// operation.

// cqlOp is one request shape of the CQL benchmark.
type cqlOp struct {
	name string
	// args are thriftd-stress's for this shape (as in operations).
	args []string
}

func cqlOperations() []cqlOp {
	var out []cqlOp
	for _, op := range operations(0) {
		if op.name != "get_range_slices (100 rows × 5 of 100 columns)" {
			out = append(out, cqlOp{op.name, op.args})
		}
	}
	return out
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
	count := &driverCount{}
	s, err := directSession(points, count)
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
	fmt.Fprintf(os.Stderr, "loaded %d rows of 100 columns through thriftd in %v\n", o.keys, time.Since(t0).Round(time.Millisecond))
	capture := o.compare.capture
	if o.short {
		capture = min(capture, 500*time.Millisecond)
	}
	replays := map[string]*replay{}

	fmt.Printf("| operation | conns | thriftd ops/s | thriftd p99 ms | direct CQL ops/s | thriftd / direct CQL |\n")
	fmt.Printf("|---|---:|---:|---:|---:|---:|\n")
	for _, op := range cqlOperations() {
		for _, c := range o.conns {
			args := append([]string{"-n", n, "-t", strconv.Itoa(c), "-S", strconv.Itoa(o.valueSize), "-duration", o.duration.String()}, op.args...)
			th, err := stress(o.stress, srv, args...)
			if err != nil {
				return fmt.Errorf("%s through thriftd: %w", op.name, err)
			}
			// The direct client replays what thriftd's store sent for
			// the shape (directcql.go), recorded once per shape.
			rp := replays[op.name]
			if rp == nil {
				a := append([]string{"-n", n, "-t", "1", "-S", strconv.Itoa(o.valueSize), "-duration", capture.String()}, op.args...)
				rec, calls, err := recordShape(o.stress, srv, a...)
				if err != nil {
					return fmt.Errorf("%s: recording thriftd's requests: %w", op.name, err)
				}
				if rp, err = newReplay(s, rec, calls); err != nil {
					return fmt.Errorf("%s: %w", op.name, err)
				}
				replays[op.name] = rp
			}
			// A first pass prepares the statements and warms the node's
			// caches for them, as thriftd's own run just did.
			if _, err := rp.run(c, min(o.duration/3, 2*time.Second), 0); err != nil {
				return fmt.Errorf("%s in direct CQL: %w", op.name, err)
			}
			sum, err := rp.run(c, o.duration, 0)
			if err != nil {
				return fmt.Errorf("%s in direct CQL: %w", op.name, err)
			}
			dr := sum.OpsPerSec
			fmt.Fprintf(os.Stderr, "%-44s %3d conns: thriftd %7.0f ops/s  direct CQL %7.0f  %3.0f%%\n", op.name, c, th.OpsPerSec, dr, 100*th.OpsPerSec/dr)
			fmt.Printf("| %s | %d | %.0f | %.2f | %.0f | %.0f%% |\n", op.name, c, th.OpsPerSec, th.P99Ms, dr, 100*th.OpsPerSec/dr)
		}
	}
	_, peak := srv.memory()
	fmt.Printf("\nthriftd peak RSS (VmHWM): %.0f MB\n", float64(peak)/(1<<20))
	fmt.Printf("\nWhat thriftd's Cassandra store sent the cluster per call (its statement recorder), which the direct CQL client replays:\n\n")
	for _, op := range cqlOperations() {
		if rp := replays[op.name]; rp != nil {
			fmt.Printf("- %s (%d calls recorded):\n", op.name, rp.calls)
			for _, l := range rp.describe() {
				fmt.Printf("  - %s\n", l)
			}
		}
	}
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
