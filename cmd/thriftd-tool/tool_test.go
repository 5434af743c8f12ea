package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/internal/transfertest"
	"github.com/thriftd/thriftd/sstablejson"
	"github.com/thriftd/thriftd/transfer"
)

var thriftdBin, toolBin string

// TestMain builds thriftd and this tool (without the race detector, so
// that the tool's memory is its own).
func TestMain(m *testing.M) {
	tool, cleanupTool, err := testenv.Binary("thriftd-tool", false)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	toolBin = tool
	code := 0
	func() {
		defer cleanupTool()
		path, cleanup, err := testenv.Thriftd(false)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
			return
		}
		defer cleanup()
		thriftdBin = path
		code = m.Run()
	}()
	os.Exit(code)
}

func node(t *testing.T) *testenv.Node {
	t.Helper()
	n := testenv.NewNode(t, thriftdBin, transfertest.Config(t, t.TempDir(), "RandomPartitioner"))
	n.Start()
	return n
}

// tool runs thriftd-tool to completion.
func tool(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(toolBin, args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatal(err)
		}
	}
	return o.String(), e.String(), cmd.ProcessState.ExitCode()
}

func TestCopyInterruptedBySIGINTResumes(t *testing.T) {
	src, dst := node(t), node(t)
	f := transfertest.FamilyNamed("Bytes")
	transfertest.Fill(t, src.Client(false), f, 3000, 20, 7)
	want := transfertest.Dump(t, src.Client(false), f.Name)

	dir := t.TempDir()
	args := []string{"copy", "--from", src.Addr, "--to", dst.Addr, "--keyspace", transfertest.Keyspace, "--cf", f.Name,
		"--workers", "1", "--batch-size", "5", "--page-rows", "10", "--progress", "log", "--progress-interval", "50ms"}
	cmd := exec.Command(toolBin, args...)
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sc := bufio.NewScanner(stderr)
	signalled := false
	for sc.Scan() {
		line := sc.Text()
		log.WriteString(line + "\n")
		if !signalled && strings.Contains(line, "msg=progress") && !strings.Contains(line, " rows=0 ") {
			cmd.Process.Signal(syscall.SIGINT)
			signalled = true
		}
	}
	cmd.Wait()
	if !signalled {
		t.Fatalf("copy ended before any progress line:\n%s", log.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit code %d after SIGINT, want 130:\n%s", code, log.String())
	}
	if !strings.Contains(log.String(), "interrupted at a row boundary") || !strings.Contains(log.String(), "--resume") {
		t.Fatalf("no resume instructions:\n%s", log.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "thriftd-tool-copy-Transfer.checkpoint.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cp transfer.Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		t.Fatal(err)
	}
	pos := cp.Families[f.Name]
	if pos == nil || pos.Done || pos.Rows == 0 || pos.Rows >= 3000 {
		t.Fatalf("checkpoint %s", b)
	}
	// The target stopped at a row boundary: each row it holds is the
	// source's row whole (the same names, values and timestamps, none
	// missing), and it holds at least every row the checkpoint counts.
	rows, wantRows := dumpRows(transfertest.Dump(t, dst.Client(false), f.Name)), dumpRows(want)
	for key, cols := range rows {
		if !slices.Equal(cols, wantRows[key]) {
			t.Fatalf("after the interruption the target holds row %s with %d columns, not exactly the source's %d:\n  %s\nthe source:\n  %s",
				key, len(cols), len(wantRows[key]), strings.Join(cols, "\n  "), strings.Join(wantRows[key], "\n  "))
		}
	}
	if int64(len(rows)) < pos.Rows {
		t.Fatalf("target holds %d rows, the checkpoint says %d were copied", len(rows), pos.Rows)
	}

	out, errOut, code := tool(t, dir, append(args, "--resume")...)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(out, "(resumed)") || !strings.Contains(out, "3000 rows") {
		t.Fatalf("summary:\n%s", out)
	}
	transfertest.Same(t, "after resume", transfertest.Dump(t, dst.Client(false), f.Name), want)
	if _, err := os.Stat(filepath.Join(dir, "thriftd-tool-copy-Transfer.checkpoint.json")); !os.IsNotExist(err) {
		t.Fatalf("checkpoint left after completing: %v", err)
	}
}

// dumpRows groups the lines of a transfertest.Dump by row key, each
// row's lines in the dump's order.
func dumpRows(dump []string) map[string][]string {
	rows := map[string][]string{}
	for _, l := range dump {
		key, _, _ := strings.Cut(l, " / ")
		rows[key] = append(rows[key], l)
	}
	return rows
}

// peakRSS runs the tool and samples VmHWM of its /proc status until it
// exits; it returns the last sample in bytes.
func peakRSS(t *testing.T, dir string, args ...string) (int64, string) {
	t.Helper()
	cmd := exec.Command(toolBin, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var peak int64
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("%v\n%s", err, out.String())
			}
			return peak, out.String()
		case <-tick.C:
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
			if err != nil {
				continue
			}
			for _, line := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					kb, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
					peak = max(peak, kb<<10)
				}
			}
		}
	}
}

func TestWideRowExportsInBoundedMemory(t *testing.T) {
	const width, valueSize = 200_000, 600
	src := node(t)
	c := src.Client(false)
	value := bytes.Repeat([]byte{0x5a}, valueSize)
	t0 := time.Now()
	for i := 0; i < width; {
		var muts []*cassandra.Mutation
		for ; len(muts) < 2000 && i < width; i++ {
			name := binary.BigEndian.AppendUint64(nil, uint64(i))
			muts = append(muts, &cassandra.Mutation{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{Column: &cassandra.Column{Name: name, Value: value, Timestamp: int64(i)}}})
		}
		m := map[string]map[string][]*cassandra.Mutation{"wide": {"Long": muts}}
		if err := c.BatchMutate(context.Background(), transfertest.Keyspace, m, cassandra.ConsistencyLevel_ONE); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("loaded in %v", time.Since(t0).Round(time.Millisecond))
	t0 = time.Now()
	dir := t.TempDir()
	peak, out := peakRSS(t, dir, "export", "--server", src.Addr, "--keyspace", transfertest.Keyspace, "--cf", "Long", "--out", dir, "--progress", "off")
	t.Logf("export of a %d-column row of %d MB in %v: peak RSS %d MB", width, width*valueSize>>20, time.Since(t0).Round(time.Millisecond), peak>>20)
	if peak == 0 || peak > 200<<20 {
		t.Fatalf("peak RSS %d MB, want under 200 MB\n%s", peak>>20, out)
	}
	// The file holds every column, in order.
	file, err := os.Open(transfer.FileName(dir, transfertest.Keyspace, "Long"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	r := sstablejson.NewReader(file, file.Name(), false, sstablejson.KeysAuto)
	n := 0
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == sstablejson.ColumnItem {
			if got := binary.BigEndian.Uint64(ev.Column.Name); got != uint64(n) || ev.Column.Timestamp != int64(n) {
				t.Fatalf("column %d is %d @ %d", n, got, ev.Column.Timestamp)
			}
			n++
		}
	}
	if n != width {
		t.Fatalf("exported %d columns, want %d", n, width)
	}
}

func TestFailuresExitNonZeroWithAMessage(t *testing.T) {
	src := node(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "--server", "127.0.0.1:1", "--keyspace", "Transfer", "--out", dir}, "connecting to 127.0.0.1:1"},
		{[]string{"export", "--server", src.Addr, "--keyspace", "Nope", "--out", dir}, "keyspace Nope does not exist on " + src.Addr},
		{[]string{"export", "--server", src.Addr, "--keyspace", "Transfer", "--cf", "Nope", "--out", dir}, "has no column family Nope"},
		{[]string{"import", "--server", src.Addr, "--keyspace", "Transfer", "--cf", "Bytes", filepath.Join(dir, "missing.json")}, "missing.json: no such file"},
		{[]string{"copy", "--from", src.Addr, "--to", src.Addr, "--keyspace", "Transfer", "--consistency", "SOME"}, `--consistency "SOME"`},
		{[]string{"export", "--server", src.Addr, "--out", dir}, `required flag(s) "keyspace" not set`},
		{[]string{"export", "--server", src.Addr, "--keyspace", "Transfer", "--out", dir, "--resume"}, "reading the checkpoint to resume from"},
	} {
		_, errOut, code := tool(t, dir, tc.args...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestSummaryAsJSON(t *testing.T) {
	src, dst := node(t), node(t)
	f := transfertest.FamilyNamed("SuperUTF8Long")
	transfertest.Fill(t, src.Client(false), f, 40, 5, 3)
	dir := t.TempDir()
	out, errOut, code := tool(t, dir, "export", "--server", src.Addr, "--keyspace", "Transfer", "--cf", f.Name, "--out", dir, "-o", "json", "--progress", "off")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// --json, as on every other command, gives the same summary.
	again, errOut, code := tool(t, t.TempDir(), "export", "--server", src.Addr, "--keyspace", "Transfer", "--cf", f.Name, "--out", t.TempDir(), "--json", "--progress", "off")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	var viaFlag transfer.Summary
	if err := json.Unmarshal([]byte(again), &viaFlag); err != nil || viaFlag.Rows != 40 {
		t.Fatalf("--json: %v: %s", err, again)
	}
	var sum transfer.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if sum.Rows != 40 || sum.Command != "export" || len(sum.Families) != 1 || sum.Families[0].File == "" {
		t.Fatalf("summary %s", out)
	}
	_, errOut, code = tool(t, dir, "import", "--server", dst.Addr, "--keyspace", "Transfer", "--cf", f.Name, sum.Families[0].File, "--progress", "off")
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	transfertest.Same(t, f.Name, transfertest.Dump(t, dst.Client(false), f.Name), transfertest.Dump(t, src.Client(false), f.Name))
}

// On a terminal the progress shows as a bar: rows, columns, rate, and the
// share of the ring read with an ETA (the test's partitioner hashes).
func TestProgressBarOnATerminal(t *testing.T) {
	src, dst := node(t), node(t)
	f := transfertest.FamilyNamed("Bytes")
	transfertest.Fill(t, src.Client(false), f, 3000, 20, 11)
	cmd := exec.Command(toolBin, "copy", "--from", src.Addr, "--to", dst.Addr, "--keyspace", transfertest.Keyspace, "--cf", f.Name,
		"--workers", "1", "--batch-size", "5")
	cmd.Dir = t.TempDir()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	var screen bytes.Buffer
	io.Copy(&screen, ptmx) // ends when the tool exits and the terminal closes
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, screen.String())
	}
	out := screen.String()
	// A copy walks the ring, so the bar knows its total: it shows the
	// columns' rate in its description, the percentage of the ring read,
	// and the time taken and left, as [elapsed:ETA].
	for what, want := range map[string]*regexp.Regexp{
		"rows, columns and rate": regexp.MustCompile(`\d+ rows, \d+ columns \(\d+/s\), \d+\.\d [KMG]?i?B`),
		"percentage":             regexp.MustCompile(`\d+% `),
		"elapsed time and ETA":   regexp.MustCompile(`\[(\d+[hms])+:(\d+[hms])+\]`),
	} {
		if !want.MatchString(out) {
			t.Fatalf("the terminal shows no %s (%s):\n%q", what, want, out)
		}
	}
	if strings.Contains(out, "msg=progress") {
		t.Fatalf("log lines on a terminal:\n%s", out)
	}
	if !strings.Contains(stdout.String(), "3000 rows") {
		t.Fatalf("summary:\n%s", stdout.String())
	}
}

// A server with SimpleAuthenticator, reached framed: the tool logs in
// with --username and --password-file.
func TestLoginAndFramed(t *testing.T) {
	src := testenv.NewNode(t, thriftdBin, transfertest.ConfigWithAuth(t, t.TempDir(), "RandomPartitioner"))
	src.Start()
	dst := node(t)
	c := src.Client(true)
	if err := c.Login(context.Background(), transfertest.Keyspace, &cassandra.AuthenticationRequest{Credentials: map[string]string{"username": transfertest.User, "password": transfertest.Password}}); err != nil {
		t.Fatal(err)
	}
	f := transfertest.FamilyNamed("UTF8")
	transfertest.Fill(t, c, f, 25, 4, 5)
	want := transfertest.Dump(t, c, f.Name)

	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte(transfertest.Password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"copy", "--from", src.Addr, "--to", dst.Addr, "--keyspace", transfertest.Keyspace, "--cf", f.Name, "--framed", "--progress", "off"}
	if _, errOut, code := tool(t, dir, args...); code != 1 || !strings.Contains(errOut, src.Addr) {
		t.Fatalf("without login: exit %d, %s", code, errOut)
	}
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte("nope\n"), 0o600)
	if _, errOut, code := tool(t, dir, append(args, "--username", transfertest.User, "--password-file", bad)...); code != 1 || !strings.Contains(errOut, "authentication failed") {
		t.Fatalf("with a wrong password: exit %d, %s", code, errOut)
	}
	// The target allows all, so any login there passes.
	if _, errOut, code := tool(t, dir, append(args, "--username", transfertest.User, "--password-file", pw, "--to-username", "nobody")...); code != 0 {
		t.Fatalf("exit %d, %s", code, errOut)
	}
	transfertest.Same(t, f.Name, transfertest.Dump(t, dst.Client(false), f.Name), want)
}
