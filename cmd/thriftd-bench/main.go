// Command thriftd-bench measures thriftd side by side with the two limits
// it runs on, from one run on one machine:
//
//   - thriftd itself, loaded by thriftd-stress over loopback TCP;
//   - the RPC ceiling: a no-op server built from the same Thrift library and
//     the same server package (framing, bounded input), answering with
//     prebuilt results of the same shapes, loaded the same way;
//   - the stock-library ceiling: the same no-op handler served by the Go
//     Thrift library's own TSimpleServer (generated processor, buffered
//     transport, binary protocol, unframed), as a plain Go 0.6 server;
//   - the storage ceiling: the same reads and writes done in-process on raw
//     goleveldb with thriftd's key layout.
//
// For each operation and connection count it prints thriftd's throughput
// and p99 latency, the ceilings, thriftd as a fraction of the lower of its
// own two (RPC and storage) and as a fraction of the stock-library one; then thriftd's peak RSS and the latency of a 100-column slice from
// the middle of a wide row. Load generator and servers share the machine,
// so every figure is relative to the same CPUs. With -load-columns it also
// loads a large data set into a fresh thriftd, reading it back in full.
//
// Run it with test/bench (make bench), which builds the binaries.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

type options struct {
	thriftd, stress, config string
	short                   bool
	duration                time.Duration
	keys, valueSize         int
	conns                   []int
	wide                    int
	loadColumns             int
	loadValueSize           int
	keep                    bool
	tmp, command            string
	transfer                transferOptions
	compare                 compareOptions
	// ceilings runs the 0.6 table beside the no-op, stock-library and
	// storage ceilings.
	ceilings bool
}

func main() {
	var o options
	var conns, noopAddr, noop19Addr, stockAddr string
	flag.StringVar(&o.thriftd, "thriftd", "bin/thriftd", "the thriftd binary")
	flag.StringVar(&o.stress, "stress", "bin/thriftd-stress", "the thriftd-stress binary")
	flag.StringVar(&o.config, "config", "storage-conf.xml", "configuration thriftd serves (its Keyspace1 is used)")
	flag.BoolVar(&o.short, "short", false, "a run of seconds that proves the benchmark works; its figures mean nothing")
	flag.DurationVar(&o.duration, "duration", 3*time.Second, "measuring time of each figure")
	flag.IntVar(&o.keys, "keys", 5000, "rows of 100 columns loaded for the reads")
	flag.IntVar(&o.valueSize, "S", 32, "bytes per column value")
	flag.StringVar(&conns, "conns", "1,8,32", "connection counts")
	flag.IntVar(&o.wide, "wide", 1_000_000, "columns of the wide row (0: skip)")
	flag.IntVar(&o.loadColumns, "load-columns", 0, "also load this many columns (100 per row) into a fresh thriftd, then read them back")
	flag.IntVar(&o.loadValueSize, "load-value-size", 32, "bytes per value for -load-columns")
	flag.BoolVar(&o.keep, "keep", false, "keep the data directories")
	flag.StringVar(&o.tmp, "tmp", "", "directory for the data directories (default: the system's)")
	flag.StringVar(&o.command, "command", "", "how the run was started, for the report's header (default: this command line)")
	flag.StringVar(&noopAddr, "serve-noop", "", "internal: run the no-op server on this address")
	flag.StringVar(&stockAddr, "serve-stock", "", "internal: run the stock-library no-op server on this address")
	flag.StringVar(&noop19Addr, "serve-noop19", "", "internal: run the 19.x no-op server on this address")
	flag.BoolVar(&o.ceilings, "ceilings", true, "run the 0.6 table beside the RPC, stock-library and storage ceilings (false: the 19.x comparison alone)")
	compareCols, compareConns := o.compare.register(flag.CommandLine)
	o.transfer.register(flag.CommandLine)
	cassandra := flag.String("cassandra", "", "run the CQL benchmark instead (cql.go): thriftd on the Cassandra cluster at HOST:PORT[,...] beside direct CQL")
	flag.Parse()
	if noopAddr != "" {
		if err := serveNoop(noopAddr, o.valueSize); err != nil {
			fmt.Fprintln(os.Stderr, "no-op server:", err)
			os.Exit(1)
		}
		return
	}
	if noop19Addr != "" {
		if err := serveNoop19(noop19Addr, o.valueSize); err != nil {
			fmt.Fprintln(os.Stderr, "19.x no-op server:", err)
			os.Exit(1)
		}
		return
	}
	if stockAddr != "" {
		if err := serveStock(stockAddr, o.valueSize); err != nil {
			fmt.Fprintln(os.Stderr, "stock-library no-op server:", err)
			os.Exit(1)
		}
		return
	}
	for _, c := range strings.Split(conns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "thriftd-bench: bad -conns %q\n", conns)
			os.Exit(2)
		}
		o.conns = append(o.conns, n)
	}
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "compare" })
	if err := o.compare.parse(*compareCols, *compareConns, explicit); err != nil {
		fmt.Fprintln(os.Stderr, "thriftd-bench:", err)
		os.Exit(2)
	}
	if o.short {
		o.duration, o.keys, o.wide = 200*time.Millisecond, 200, 20_000
		// A busy machine may answer no call within a short figure's time:
		// it runs on until one has succeeded.
		stressExtra = []string{"-min-ops", "1"}
		o.compare.rows, o.compare.warm = 200, min(o.compare.warm, 1200*time.Millisecond)
		o.compare.indexRows = min(o.compare.indexRows, 2000)
		o.loadColumns = min(o.loadColumns, 20_000)
		o.transfer.columns = min(o.transfer.columns, 20_000)
	}
	run := run
	if *cassandra != "" {
		run = func(o *options) error { return runCQL(o, *cassandra) }
	}
	if err := run(&o); err != nil {
		fmt.Fprintln(os.Stderr, "thriftd-bench:", err)
		os.Exit(1)
	}
}

// op is one benchmarked request shape.
type op struct {
	name string
	// args are thriftd-stress's for this shape.
	args []string
	// raw is the same work on the raw store.
	raw storageOp
}

const (
	readCF  = 1 // Standard1: the preloaded rows the reads use
	writeCF = 2 // Standard2: where the write benchmarks write
)

func operations(keys int) []op {
	key := func(rng *rand.Rand) string { return benchKey(rng.IntN(keys), keys) }
	return []op{
		{"insert (1 column)", []string{"-o", "insert", "-c", "1", "-cf", "Standard2", "-now"},
			func(s *rawStore, rng *rand.Rand, _ int) error { return s.write(writeCF, []string{key(rng)}, 1) }},
		{"get_slice (10 of 100 columns)", []string{"-o", "read", "-c", "100", "-slice", "10", "-r"},
			func(s *rawStore, rng *rand.Rand, _ int) error {
				return expect(s.slice(readCF, key(rng), 10))(10)
			}},
		{"multiget_slice (10 keys × 10 columns)", []string{"-o", "multiget", "-multiget", "10", "-c", "100", "-slice", "10", "-r"},
			func(s *rawStore, rng *rand.Rand, _ int) error {
				ks := make([]string, 10)
				for i := range ks {
					ks[i] = key(rng)
				}
				return expect(s.multi(readCF, ks, 10))(100)
			}},
		{"batch_mutate (100 columns)", []string{"-o", "batch", "-c", "100", "-cf", "Standard2", "-now"},
			func(s *rawStore, rng *rand.Rand, _ int) error { return s.write(writeCF, []string{key(rng)}, 100) }},
		{"get_range_slices (100 rows × 10 columns)", []string{"-o", "rangeslice", "-g", "100", "-c", "100", "-slice", "10"},
			func(s *rawStore, rng *rand.Rand, _ int) error {
				// Near the end of the ring a page is shorter, as for thriftd.
				n, err := s.scan(readCF, key(rng), 100, 10)
				if err == nil && n == 0 {
					err = fmt.Errorf("range read found no rows")
				}
				return err
			}},
		// The narrow slice of wide rows that paging scripts read.
		{"get_range_slices (100 rows × 5 of 100 columns)", []string{"-o", "rangeslice", "-g", "100", "-c", "100", "-slice", "5"},
			func(s *rawStore, rng *rand.Rand, _ int) error {
				n, err := s.scan(readCF, key(rng), 100, 5)
				if err == nil && n == 0 {
					err = fmt.Errorf("range read found no rows")
				}
				return err
			}},
	}
}

// infoProbeOp is the shape during which thriftd-tool info is timed.
const infoProbeOp = "batch_mutate (100 columns)"

func expect(n int, err error) func(want int) error {
	return func(want int) error {
		if err == nil && n != want {
			err = fmt.Errorf("read %d columns, want %d", n, want)
		}
		return err
	}
}

// result is one line of the table.
type result struct {
	op                        string
	conns                     int
	thriftd                   *summary
	rpc, stock, storage, best float64
	// Server CPU time per operation, thriftd's and the stock library's.
	thriftdCPU, stockCPU time.Duration
}

func run(o *options) error {
	tmp, err := os.MkdirTemp(o.tmp, "thriftd-bench")
	if err != nil {
		return err
	}
	if !o.keep {
		defer os.RemoveAll(tmp)
	}
	command := o.command
	if command == "" {
		command = strings.Join(os.Args, " ")
	}
	fmt.Printf("# thriftd benchmark\n\n%s\n\n", machine(command))

	if o.loadColumns > 0 {
		return loadAndReadBack(o, filepath.Join(tmp, "load"))
	}
	if o.transfer.columns > 0 {
		return transferBench(o, tmp)
	}
	if o.ceilings {
		if err := runCeilings(o, tmp); err != nil {
			return err
		}
	}
	return runCompare(o, tmp)
}

// runCeilings is the 0.6 table: thriftd beside the RPC, stock-library and
// storage ceilings, then its memory and the wide-row slice.
func runCeilings(o *options, tmp string) error {
	srv, err := startThriftd(o.thriftd, o.config, filepath.Join(tmp, "thriftd"))
	if err != nil {
		return err
	}
	defer srv.stop()
	noop, err := startNoop("-serve-noop", "no-op", o.valueSize)
	if err != nil {
		return err
	}
	defer noop.stop()
	stock, err := startNoop("-serve-stock", "stock-library no-op", o.valueSize)
	if err != nil {
		return err
	}
	defer stock.stop()
	raw, err := openRaw(filepath.Join(tmp, "raw"), o.valueSize, 100)
	if err != nil {
		return err
	}
	defer raw.close()

	// The rows every read uses: o.keys rows of 100 columns, in both stores.
	t0 := time.Now()
	n := strconv.Itoa(o.keys)
	if _, err := stress(o.stress, srv, "-o", "batch", "-c", "100", "-n", n, "-t", "8", "-S", strconv.Itoa(o.valueSize), "-now"); err != nil {
		return err
	}
	if err := raw.load(readCF, o.keys, 100); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "loaded %d rows of 100 columns in %v\n", o.keys, time.Since(t0).Round(time.Millisecond))

	var results []result
	for _, b := range operations(o.keys) {
		for _, c := range o.conns {
			args := append([]string{"-n", n, "-t", strconv.Itoa(c), "-S", strconv.Itoa(o.valueSize), "-duration", o.duration.String()}, b.args...)
			r := result{op: b.name, conns: c}
			// While the busiest write shape runs, an operator asks for
			// thriftd-tool info.
			var probe *adminProbe
			stopProbe := make(chan struct{})
			if b.name == infoProbeOp && c == slices.Max(o.conns) && srv.admin != "" {
				probe = probeAdmin(srv.admin, 50*time.Millisecond, stopProbe)
			}
			var cpu []time.Duration
			r.thriftd, cpu, err = stressCPU(o.stress, srv, args...)
			close(stopProbe)
			if err != nil {
				return err
			}
			r.thriftdCPU = cpu[0]
			if probe != nil {
				if err := probe.report(fmt.Sprintf("%s at %d connections", b.name, c)); err != nil {
					return err
				}
			}
			rpc, err := stress(o.stress, noop, args...)
			if err != nil {
				return err
			}
			r.rpc = rpc.OpsPerSec
			st, stockCPU, err := stressCPU(o.stress, stock, args...)
			if err != nil {
				return err
			}
			r.stock, r.stockCPU = st.OpsPerSec, stockCPU[0]
			if r.storage, err = runStorage(raw, b.raw, c, o.duration); err != nil {
				return fmt.Errorf("%s on raw goleveldb: %w", b.name, err)
			}
			r.best = min(r.rpc, r.storage)
			fmt.Fprintf(os.Stderr, "%-48s %3d conns: thriftd %8.0f ops/s  rpc %8.0f  stock %8.0f  storage %8.0f  %3.0f%%  stock %3.0f%%  CPU/op thriftd %v stock %v\n",
				b.name, c, r.thriftd.OpsPerSec, r.rpc, r.stock, r.storage, 100*r.thriftd.OpsPerSec/r.best, 100*r.thriftd.OpsPerSec/r.stock, r.thriftdCPU, r.stockCPU)
			results = append(results, r)
		}
	}
	_, peak := srv.memory()
	printTable(results)
	fmt.Printf("\nthriftd peak RSS (VmHWM) over the whole run: %.0f MB\n", float64(peak)/(1<<20))

	if o.wide > 0 {
		if err := wideRow(srv, o.wide); err != nil {
			return err
		}
	}
	_, peak = srv.memory()
	fmt.Printf("\nthriftd peak RSS (VmHWM) at the end: %.0f MB\n", float64(peak)/(1<<20))
	return nil
}

func printTable(results []result) {
	fmt.Printf("| operation | conns | thriftd ops/s | thriftd p99 ms | RPC ceiling ops/s | storage ceiling ops/s | thriftd / lower ceiling | stock-library ceiling ops/s | thriftd / stock | server CPU µs/op thriftd / stock |\n")
	fmt.Printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range results {
		fmt.Printf("| %s | %d | %.0f | %.2f | %.0f | %.0f | %.0f%% | %.0f | %.0f%% | %.0f / %.0f |\n",
			r.op, r.conns, r.thriftd.OpsPerSec, r.thriftd.P99Ms, r.rpc, r.storage, 100*r.thriftd.OpsPerSec/r.best,
			r.stock, 100*r.thriftd.OpsPerSec/r.stock, micros(r.thriftdCPU), micros(r.stockCPU))
	}
}

func micros(d time.Duration) float64 {
	return float64(d) / float64(time.Microsecond)
}

// machine describes where and how the benchmark ran.
func machine(command string) string {
	model := "unknown CPU"
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(raw), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if raw, err := os.ReadFile("/proc/meminfo"); err == nil {
		f := strings.Fields(strings.SplitN(string(raw), "\n", 2)[0])
		if len(f) >= 2 {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			mem = fmt.Sprintf(", %.1f GB RAM", float64(kb)/(1<<20))
		}
	}
	return fmt.Sprintf("- date: %s\n- machine: %d CPUs (%s)%s, %s/%s, %s; load generator, servers and raw store share these CPUs\n- command: `%s`",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.NumCPU(), model, mem, runtime.GOOS, runtime.GOARCH, runtime.Version(), command)
}
