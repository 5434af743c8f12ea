package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// transferOptions drive the benchmark of thriftd-tool's export, import
// and copy (-transfer-columns).
type transferOptions struct {
	columns int
	tool    string
	workers int
}

func (t *transferOptions) register(fs *flag.FlagSet) {
	fs.IntVar(&t.columns, "transfer-columns", 0, "benchmark thriftd-tool export, import and copy of this many columns (100 per row) instead of the request table")
	fs.StringVar(&t.tool, "tool", "bin/thriftd-tool", "the thriftd-tool binary, for -transfer-columns")
	fs.IntVar(&t.workers, "transfer-workers", 8, "connections of the load, the import and the copy, for -transfer-columns")
}

// toolRun is one run of thriftd-tool.
type toolRun struct {
	elapsed time.Duration
	// peakRSS is the tool's maximum resident set (getrusage), bytes.
	peakRSS int64
	rows    int64
	columns int64
}

func runTool(bin string, args ...string) (*toolRun, error) {
	cmd := exec.Command(bin, append(args, "-o", "json", "--progress", "off")...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("thriftd-tool %v: %v: %s", args, err, errOut.String())
	}
	r := &toolRun{elapsed: time.Since(t0)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.peakRSS = ru.Maxrss << 10
	}
	var sum struct {
		Rows    int64 `json:"rows"`
		Columns int64 `json:"columns"`
	}
	if err := json.Unmarshal(out.Bytes(), &sum); err != nil {
		return nil, fmt.Errorf("thriftd-tool summary: %v: %s", err, out.String())
	}
	r.rows, r.columns = sum.Rows, sum.Columns
	return r, nil
}

// transferBench loads o.transfer.columns columns into a thriftd with
// thriftd-stress (batch_mutate of one 100-column row, the reference
// throughput), exports them to a file, loads the same again into a fresh
// thriftd (the reference for what follows, taken close to it on a shared
// machine), imports the file into a fresh thriftd with and without the
// check pass, and copies the first thriftd into another fresh one, import
// and copy with the same batch shape and connections.
func transferBench(o *options, tmp string) error {
	t := o.transfer
	if _, err := os.Stat(t.tool); err != nil {
		return fmt.Errorf("-tool: %v (build it with go build -o bin/ ./cmd/thriftd-tool)", err)
	}
	rows := max(t.columns/100, 1)
	cols := int64(rows) * 100
	src, err := startThriftd(o.thriftd, o.config, filepath.Join(tmp, "source"))
	if err != nil {
		return err
	}
	defer src.stop()
	workers := strconv.Itoa(t.workers)
	load, err := stress(o.stress, src, "-o", "batch", "-c", "100", "-n", strconv.Itoa(rows), "-t", workers, "-S", strconv.Itoa(o.valueSize), "-now", "-random-values")
	if err != nil {
		return err
	}
	ref := float64(cols) / load.Seconds
	fmt.Printf("## thriftd-tool export, import and copy\n\n")
	fmt.Printf("%d rows × 100 columns of %d-byte values in Keyspace1.Standard1; import and copy write one row of 100 columns per batch_mutate on %d connections, as the load did.\n\n", rows, o.valueSize, t.workers)
	fmt.Printf("| operation | seconds | columns/s | MB/s of values | tool peak RSS MB | vs thriftd's batch_mutate |\n|---|---:|---:|---:|---:|---:|\n")
	fmt.Printf("| thriftd-stress batch_mutate (reference) | %.1f | %.0f | %.1f | | 100%% |\n", load.Seconds, ref, ref*float64(o.valueSize)/1e6)
	line := func(name string, r *toolRun) error {
		if r.columns != cols {
			return fmt.Errorf("%s moved %d columns, want %d", name, r.columns, cols)
		}
		rate := float64(r.columns) / r.elapsed.Seconds()
		fmt.Printf("| %s | %.1f | %.0f | %.1f | %.0f | %.0f%% |\n", name, r.elapsed.Seconds(), rate, rate*float64(o.valueSize)/1e6, float64(r.peakRSS)/(1<<20), 100*rate/ref)
		return nil
	}

	dir := filepath.Join(tmp, "export")
	exp, err := runTool(t.tool, "export", "--server", src.addr, "--keyspace", "Keyspace1", "--cf", "Standard1", "--out", dir)
	if err != nil {
		return err
	}
	if err := line("export (get_range_slices, one connection)", exp); err != nil {
		return err
	}
	file := filepath.Join(dir, "Keyspace1.Standard1.json")
	if st, err := os.Stat(file); err == nil {
		fmt.Fprintf(os.Stderr, "exported file: %.2f GB\n", float64(st.Size())/1e9)
	}

	// The machine is shared, so the reference is taken again right before
	// the writes it is compared with: the same load into a fresh thriftd.
	fresh, err := startThriftd(o.thriftd, o.config, filepath.Join(tmp, "reference"))
	if err != nil {
		return err
	}
	again, err := stress(o.stress, fresh, "-o", "batch", "-c", "100", "-n", strconv.Itoa(rows), "-t", workers, "-S", strconv.Itoa(o.valueSize), "-now", "-random-values")
	fresh.stop()
	if err != nil {
		return err
	}
	os.RemoveAll(filepath.Join(tmp, "reference"))
	ref = float64(cols) / again.Seconds
	fmt.Printf("| thriftd-stress batch_mutate again, into a fresh thriftd (the reference from here on) | %.1f | %.0f | %.1f | | 100%% |\n", again.Seconds, ref, ref*float64(o.valueSize)/1e6)
	for _, precheck := range []bool{true, false} {
		dir := filepath.Join(tmp, "import")
		dst, err := startThriftd(o.thriftd, o.config, dir)
		if err != nil {
			return err
		}
		args := []string{"import", "--server", dst.addr, "--keyspace", "Keyspace1", "--cf", "Standard1", "--batch-size", "100", "--workers", workers, file}
		name := "import (check pass, then batch_mutate)"
		if !precheck {
			args = append(args, "--no-precheck")
			name = "import --no-precheck (batch_mutate as it reads)"
		}
		imp, err := runTool(t.tool, args...)
		dst.stop()
		if err != nil {
			return err
		}
		if err := line(name, imp); err != nil {
			return err
		}
		os.RemoveAll(dir)
	}

	dst, err := startThriftd(o.thriftd, o.config, filepath.Join(tmp, "copy"))
	if err != nil {
		return err
	}
	cp, err := runTool(t.tool, "copy", "--from", src.addr, "--to", dst.addr, "--keyspace", "Keyspace1", "--cf", "Standard1",
		"--batch-size", "100", "--workers", workers, "--checkpoint", filepath.Join(tmp, "copy.checkpoint"))
	dst.stop()
	if err != nil {
		return err
	}
	return line("copy", cp)
}
