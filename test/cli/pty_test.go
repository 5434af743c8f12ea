package cli

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// terminal is thriftd-cli running on a real pseudo-terminal.
type terminal struct {
	t    *testing.T
	cmd  *exec.Cmd
	pty  *os.File
	done chan struct{}

	mu  sync.Mutex
	out strings.Builder
}

// startTerminal runs thriftd-cli interactively with HOME set to home.
func startTerminal(t *testing.T, home string, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(cliBin, args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "TERM=xterm")
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 160})
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, cmd: cmd, pty: f, done: make(chan struct{})}
	go func() {
		defer close(term.done)
		buf := make([]byte, 4096)
		answered := 0
		for {
			n, err := f.Read(buf)
			term.mu.Lock()
			term.out.Write(buf[:n])
			// Answer each cursor position query (DSR, ESC [ 6 n) as a
			// terminal does; the line editor waits for the answer.
			queries := strings.Count(term.out.String(), "\x1b[6n")
			term.mu.Unlock()
			for ; answered < queries; answered++ {
				io.WriteString(f, "\x1b[1;1R")
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		f.Close()
		<-term.done
	})
	return term
}

// output is everything the terminal has shown, escape sequences removed.
func (term *terminal) output() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return ansi.ReplaceAllString(term.out.String(), "")
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// waitFor waits until the terminal has shown want count times.
func (term *terminal) waitFor(want string, count int) {
	term.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for strings.Count(term.output(), want) < count {
		if time.Now().After(deadline) {
			term.t.Fatalf("the terminal did not show %q %d times within 2 minutes; it shows:\n%s", want, count, term.output())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// typeKeys sends keys to the terminal as a user would, a few at a time.
func (term *terminal) typeKeys(keys string) {
	term.t.Helper()
	if _, err := io.WriteString(term.pty, keys); err != nil {
		term.t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
}

// wait waits for thriftd-cli to exit and returns its status.
func (term *terminal) wait() int {
	term.t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- term.cmd.Wait() }()
	select {
	case err := <-exited:
		for _, bad := range []string{"panic", "goroutine ", "DATA RACE"} {
			if strings.Contains(term.output(), bad) {
				term.t.Errorf("the terminal shows %q:\n%s", bad, term.output())
			}
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			term.t.Fatal(err)
		}
		return 0
	case <-time.After(20 * time.Second):
		term.t.Fatalf("thriftd-cli did not exit; the terminal shows:\n%s", term.output())
	}
	return -1
}

const (
	upArrow = "\x1b[A"
	enter   = "\r"
	tab     = "\t"
	ctrlC   = "\x03"
	ctrlD   = "\x04"
)

func TestInteractiveHistoryAcrossRestarts(t *testing.T) {
	n := start(t, defaultConfig)
	home := t.TempDir()
	addr := hostPort(t, n)

	term := startTerminal(t, home, addr...)
	term.waitFor(`Connected to: "Test Cluster" on `+addr[1]+"/"+addr[3], 1)
	term.waitFor("thriftd> ", 1)
	term.typeKeys("show api version" + enter)
	term.waitFor("2.2.0", 1)
	term.typeKeys("set Keyspace1.Standard1['k']['c'] = 'v'" + enter)
	term.waitFor("Value inserted.", 1)
	// An error is shown and the shell goes on.
	term.typeKeys("get Keyspace1.Nope['k']" + enter)
	term.waitFor("No such column family: Nope", 1)
	term.typeKeys("quit" + enter)
	if code := term.wait(); code != 0 {
		t.Fatalf("quit: exit %d", code)
	}

	history, err := os.ReadFile(filepath.Join(home, ".thriftd_cli_history"))
	if err != nil {
		t.Fatal(err)
	}
	want := "show api version\nset Keyspace1.Standard1['k']['c'] = 'v'\nget Keyspace1.Nope['k']\nquit\n"
	if string(history) != want {
		t.Fatalf("~/.thriftd_cli_history holds %q, want %q", history, want)
	}
	if st, err := os.Stat(filepath.Join(home, ".thriftd_cli_history")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the history file's mode is %v, want -rw-------", st.Mode())
	}

	// A new shell recalls the earlier one's lines with the up arrow:
	// four lines back is show api version.
	term = startTerminal(t, home, addr...)
	term.waitFor("thriftd> ", 1)
	term.typeKeys(upArrow + upArrow + upArrow + upArrow)
	term.waitFor("thriftd> show api version", 1)
	term.typeKeys(enter)
	term.waitFor("2.2.0", 1)
	// Ctrl-D on an empty line leaves.
	term.waitFor("thriftd> ", 2)
	term.typeKeys(ctrlD)
	if code := term.wait(); code != 0 {
		t.Fatalf("Ctrl-D: exit %d", code)
	}
}

func TestInteractiveTabCompletion(t *testing.T) {
	n := start(t, defaultConfig)
	home := t.TempDir()
	history := filepath.Join(home, "elsewhere_history")
	term := startTerminal(t, home, append(hostPort(t, n), "--history", history)...)
	term.waitFor("thriftd> ", 1)

	// "Keys" completes to the only keyspace, Keyspace1, and its dot;
	// "StandardB" to the only column family starting so.
	term.typeKeys("get Keys" + tab)
	term.waitFor("get Keyspace1.", 1)
	term.typeKeys("StandardB" + tab)
	term.waitFor("get Keyspace1.StandardByUUID1", 1)
	term.typeKeys("['k']" + enter)
	term.waitFor("Returned 0 results.", 1)

	// A command word completes too.
	term.typeKeys("sh" + tab + "api version" + enter)
	term.waitFor("2.2.0", 1)
	term.typeKeys("exit" + enter)
	if code := term.wait(); code != 0 {
		t.Fatalf("exit: exit %d", code)
	}
	got, err := os.ReadFile(history)
	if err != nil {
		t.Fatal(err)
	}
	if want := "get Keyspace1.StandardByUUID1['k']\nshow api version\nexit\n"; string(got) != want {
		t.Fatalf("--history file holds %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(home, ".thriftd_cli_history")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("with --history, ~/.thriftd_cli_history was touched: %v", err)
	}
}

func TestInteractiveWithoutServer(t *testing.T) {
	n := start(t, defaultConfig)
	addr := hostPort(t, n)
	n.Stop()
	term := startTerminal(t, t.TempDir(), append(addr, "--history", "")...)
	refused := "cannot connect to " + addr[1] + "/" + addr[3] + ": connection refused"
	term.waitFor(refused, 1)
	term.waitFor("thriftd> ", 1)
	// Ctrl-C drops the line being typed; the shell stays.
	term.typeKeys("describe keyspace Nowhere" + ctrlC)
	// The shell still answers what needs no server.
	term.typeKeys("help" + enter)
	term.waitFor("List of all CLI commands:", 1)
	term.typeKeys("get Keyspace1.Standard1['k" + enter)
	term.waitFor("syntax error at column 25: unterminated string", 1)
	// The same describe, submitted this time, tries the server and says
	// it cannot connect: that line is what the dropped one would have
	// printed had it run.
	term.typeKeys("describe keyspace Nowhere" + enter)
	term.waitFor(refused, 2)
	term.typeKeys("quit" + enter)
	if code := term.wait(); code != 0 {
		t.Fatalf("quit: exit %d", code)
	}
	// One refusal at start, one for the submitted describe; a third
	// would be the dropped line's.
	if got := strings.Count(term.output(), refused); got != 2 {
		t.Errorf("the terminal shows %q %d times, want 2 (start and the submitted describe): the line dropped with Ctrl-C ran?\n%s", refused, got, term.output())
	}
}
