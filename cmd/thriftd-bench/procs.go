package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process is a server the benchmark started.
type process struct {
	name string
	cmd  *exec.Cmd
	addr string
	// admin is thriftd's admin endpoint, HOST:PORT ("" for the no-op
	// servers).
	admin string
	// pid is the server's process when it was not started here (cmd is
	// nil), 0 when unknown.
	pid int
	// others are more processes that serve its calls (the Cassandra node
	// behind thriftd's Cassandra store), whose CPU time counts too.
	others []int
	// cluster is the contact points of the Cassandra cluster behind
	// thriftd on the Cassandra store, "" for other servers.
	cluster string
}

// serverPid is the process whose CPU and memory are read, 0 when unknown.
func (p *process) serverPid() int {
	if p.cmd != nil {
		return p.cmd.Process.Pid
	}
	return p.pid
}

// startTimeout bounds thriftd's start: on the Cassandra store it creates
// its keyspaces and tables first, which a busy node takes minutes over.
const startTimeout = 5 * time.Minute

// startThriftd runs thriftd on config with data in dir (none when dir is
// "", as with -cassandra), on a free loopback port, and waits for its
// "thriftd is serving" line.
func startThriftd(bin, config, dir string, extra ...string) (*process, error) {
	// -api 0.6: the load generators are 0.6 clients, framed or not.
	args := []string{"-config", config, "-listen", "127.0.0.1:0", "-log-format", "json", "-admin", "127.0.0.1:0", "-api", "0.6"}
	if dir != "" {
		args = append(args, "-data", dir)
	}
	args = append(args, extra...)
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	addr := make(chan [2]string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		sent := false
		admin := ""
		for sc.Scan() {
			var line struct{ Msg, Listen, Level, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) != nil {
				continue
			}
			if line.Msg == "admin endpoint is serving" {
				// Logged before "thriftd is serving".
				admin = line.Addr
			}
			if !sent && line.Msg == "thriftd is serving" {
				addr <- [2]string{line.Listen, admin}
				sent = true
			} else if line.Level == "WARN" || line.Level == "ERROR" {
				fmt.Fprintf(os.Stderr, "thriftd: %s\n", sc.Text())
			}
		}
		if !sent {
			close(addr)
		}
	}()
	select {
	case a, ok := <-addr:
		if !ok {
			cmd.Wait()
			return nil, fmt.Errorf("thriftd exited before serving (%v)", cmd.ProcessState)
		}
		return &process{name: "thriftd", cmd: cmd, addr: a[0], admin: a[1]}, nil
	case <-time.After(startTimeout):
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("thriftd did not start serving within %v", startTimeout)
	}
}

// startNoop runs this program as a no-op server: mode is "-serve-noop"
// (the RPC ceiling, on package server) or "-serve-stock" (the stock-library
// ceiling), and name is what errors call it.
func startNoop(mode, name string, valueSize int) (*process, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, mode, "127.0.0.1:0", "-S", strconv.Itoa(valueSize))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("%s server did not start: %w", name, err)
	}
	return &process{name: name, cmd: cmd, addr: strings.TrimSpace(line)}, nil
}

// stop ends the process with SIGTERM (thriftd closes its store cleanly).
func (p *process) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// memory returns the process's resident set now and at its peak, in bytes
// (VmRSS and VmHWM of /proc/PID/status).
func (p *process) memory() (rss, peak int64) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.serverPid()))
	if p.serverPid() == 0 || err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(raw), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb << 10
		case "VmHWM:":
			peak = kb << 10
		}
	}
	return rss, peak
}

// cpu returns the CPU time the process has used so far (utime+stime of
// /proc/PID/stat), or 0 when it cannot be read.
func (p *process) cpu() time.Duration {
	return pidCPU(p.serverPid())
}

// cpus returns the CPU time the server's processes have used so far: its
// own, then its others'.
func (p *process) cpus() []time.Duration {
	out := []time.Duration{p.cpu()}
	for _, pid := range p.others {
		out = append(out, pidCPU(pid))
	}
	return out
}

// pidCPU returns the CPU time process pid has used so far (utime+stime
// of /proc/PID/stat), or 0 when it cannot be read.
func pidCPU(pid int) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if pid == 0 || err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: fields are
	// counted from after it, where state is field 3.
	_, rest, ok := strings.Cut(string(raw), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	// Linux reports these in clock ticks of USER_HZ, 100 on every
	// architecture Go supports.
	return time.Duration(utime+stime) * (time.Second / 100)
}

// stressCPU runs thriftd-stress against p like stress, and also returns
// the server's CPU time per operation over the run: steadier than
// throughput when the machine is shared, since it does not count the time
// the server waited for a CPU.
func stressCPU(bin string, p *process, args ...string) (*summary, []time.Duration, error) {
	before := p.cpus()
	s, err := stress(bin, p, args...)
	if err != nil {
		return nil, nil, err
	}
	after := p.cpus()
	per := make([]time.Duration, len(after))
	for i := range after {
		per[i] = (after[i] - before[i]) / time.Duration(s.Ops)
	}
	return s, per, nil
}

func (p *process) port() string {
	_, port, _ := net.SplitHostPort(p.addr)
	return port
}

// host is where thriftd-stress connects: the address's host, loopback
// when it is a wildcard or missing.
func (p *process) host() string {
	h, _, _ := net.SplitHostPort(p.addr)
	if h == "" || h == "0.0.0.0" || h == "::" {
		return "127.0.0.1"
	}
	return h
}

// summary is thriftd-stress's -json output.
type summary struct {
	Ops       uint64  `json:"ops"`
	Errors    uint64  `json:"errors"`
	Seconds   float64 `json:"seconds"`
	OpsPerSec float64 `json:"ops_per_sec"`
	P50Ms     float64 `json:"p50_ms"`
	P99Ms     float64 `json:"p99_ms"`
	P999Ms    float64 `json:"p999_ms"`
}

// stressExtra are thriftd-stress options every run gets.
var stressExtra []string

// stress runs thriftd-stress against p and returns its summary.
func stress(bin string, p *process, args ...string) (*summary, error) {
	args = append(append([]string{"-d", p.host(), "-p", p.port(), "-json", "-i", "3600"}, stressExtra...), args...)
	cmd := exec.Command(bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("thriftd-stress %s against %s: %v: %s", strings.Join(args, " "), p.name, err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var s summary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &s); err != nil {
		return nil, fmt.Errorf("thriftd-stress output: %v", err)
	}
	if s.Errors > 0 || s.Ops == 0 {
		return &s, fmt.Errorf("thriftd-stress %s against %s: %d ops, %d errors: %s", strings.Join(args, " "), p.name, s.Ops, s.Errors, errOut.String())
	}
	return &s, nil
}

// dirSize is the bytes of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// listenerPid finds the local process listening on TCP port (through
// /proc/net/tcp and /proc/net/tcp6, then the processes' socket
// descriptors), so that the CPU time of a server started elsewhere can
// be read; 0 when it cannot be found or read.
func listenerPid(port string) int {
	n, err := strconv.Atoi(port)
	if err != nil {
		return 0
	}
	want := fmt.Sprintf(":%04X", n)
	inodes := map[string]bool{}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		raw, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(raw), "\n")[1:] {
			f := strings.Fields(l)
			// local_address, state (0A: LISTEN), inode.
			if len(f) >= 10 && strings.HasSuffix(f[1], want) && f[3] == "0A" {
				inodes["socket:["+f[9]+"]"] = true
			}
		}
	}
	if len(inodes) == 0 {
		return 0
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range procs {
		fds, _ := filepath.Glob(dir + "/fd/*")
		for _, fd := range fds {
			if link, err := os.Readlink(fd); err == nil && inodes[link] {
				pid, _ := strconv.Atoi(filepath.Base(dir))
				return pid
			}
		}
	}
	return 0
}
