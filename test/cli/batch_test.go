package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/internal/testenv"
)

var timestampRE = regexp.MustCompile(`timestamp=(\d+)`)

// stamps replaces each timestamp=N with timestamp=T after checking that N
// is the microseconds of a moment since since.
func stamps(t *testing.T, since time.Time, out string) string {
	t.Helper()
	return timestampRE.ReplaceAllStringFunc(out, func(m string) string {
		n, _ := strconv.ParseInt(strings.TrimPrefix(m, "timestamp="), 10, 64)
		if n < since.UnixMicro() || n > time.Now().UnixMicro() {
			t.Errorf("%s is not the microseconds of a moment of this test (from %d)", m, since.UnixMicro())
		}
		return "timestamp=T"
	})
}

// TestExecPrints06Lines runs the example of the documentation.
func TestExecPrints06Lines(t *testing.T) {
	n := start(t, testConfig)
	since := time.Now()
	r := runCLI(t, "", append(hostPort(t, n), "-e",
		"set Keyspace1.Standard1['jsmith']['first'] = 'John'; get Keyspace1.Standard1['jsmith']")...)
	want := "Value inserted.\n=> (column=first, value=John, timestamp=T)\nReturned 1 results.\n"
	if r.code != 0 || r.stderr != "" || stamps(t, since, r.stdout) != want {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant stdout:\n%s", r.code, r.stdout, r.stderr, want)
	}
}

// script exercises every command of 0.6 but connect and quit.
const script = `# A script as cassandra-cli users wrote them, one statement a line.
show api version
show cluster name
set Keyspace1.Standard1['jsmith']['first'] = 'John'
set Keyspace1.Standard1['jsmith']['last'] = 'Smith'
set Keyspace1.Standard1['jsmith']['age'] = '42'
-- several on one line
get Keyspace1.Standard1['jsmith']; count Keyspace1.Standard1['jsmith']
get Keyspace1.Standard1['jsmith']['last']
set Keyspace1.Super1['jsmith'][0x01][1] = 'it\'s'
get Keyspace1.Super1['jsmith']
set Keyspace1.StandardLong1['k'][1234] = long(5)
get Keyspace1.StandardLong1['k'] limit 1
del Keyspace1.Standard1['jsmith']['age']
count Keyspace1.Standard1['jsmith']
del Keyspace1.Standard1['jsmith']
get Keyspace1.Standard1['jsmith']
describe keyspace Keyspace3
`

const scriptOut = `2.2.0
Test Cluster
Value inserted.
Value inserted.
Value inserted.
=> (column=age, value=42, timestamp=T)
=> (column=first, value=John, timestamp=T)
=> (column=last, value=Smith, timestamp=T)
Returned 3 results.
3 columns
=> (column=last, value=Smith, timestamp=T)
Value inserted.
=> (super_column=0x01,
     (column=1, value=it's, timestamp=T))
Returned 1 results.
Value inserted.
=> (column=1234, value=0x0000000000000005, timestamp=T)
Returned 1 results.
column removed.
2 columns
row removed.
Returned 0 results.
Column Family Name: Standard1
Column Family Type: Standard
Column Sorted By: org.apache.cassandra.db.marshal.BytesType
------
`

func TestScriptFromFileAndStdin(t *testing.T) {
	n := start(t, testConfig)
	file := filepath.Join(t.TempDir(), "script.txt")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		stdin string
		args  []string
	}{
		{"-f FILE", "", []string{"-f", file}},
		{"-f -", script, []string{"-f", "-"}},
		{"a pipe", script, nil},
		{"-e", "", []string{"-e", script}},
	} {
		since := time.Now()
		r := runCLI(t, tt.stdin, append(hostPort(t, n), tt.args...)...)
		if got := stamps(t, since, r.stdout); r.code != 0 || r.stderr != "" || got != scriptOut {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s\nwant stdout:\n%s", tt.name, r.code, got, r.stderr, scriptOut)
		}
	}
}

func TestExitStatus(t *testing.T) {
	n := start(t, testConfig)
	addr := hostPort(t, n)
	for _, tt := range []struct {
		name           string
		args           []string
		stdout, stderr string
		code           int
	}{
		{"success", []string{"-e", "show api version"}, "2.2.0\n", "", 0},
		{"quit ends the script well", []string{"-e", "show api version; quit; show cluster name"}, "2.2.0\n", "", 0},
		{"the server's InvalidRequestException", []string{"-e", "set Keyspace1.Standard1['k'][''] = 'v'"},
			"", "Invalid request: column name must not be empty\n", 1},
		{"a failure stops the script", []string{"-e", "show api version; get Keyspace1.Standard1['k']['nope']; show cluster name"},
			"2.2.0\n", "Not found.\n", 1},
		{"unknown column family", []string{"-e", "count Keyspace1.Nope['k']"}, "", "No such column family: Nope\n", 1},
		{"a syntax error runs nothing", []string{"-e", "set Keyspace1.Standard1['k']['c'] = 'v'; get Keyspace1.Standard1['k"},
			"", "syntax error at column 66: unterminated string\n", 1},
		{"... and wrote nothing", []string{"-e", "count Keyspace1.Standard1['k']"}, "0 columns\n", "", 0},
		{"a typed literal that does not fit", []string{"-e", "get Keyspace1.StandardLong1['k']['ten']"},
			"", "'ten' is not a number, and names sorted by LongType are 64-bit integers\n", 1},
		{"JSON", []string{"--output", "json", "-e", "count Keyspace1.Standard1['k']; get Keyspace1.Standard1['k']['x']"},
			`{"count":0}` + "\n", `{"error":"Not found."}` + "\n", 1},
		{"framed", []string{"--framed", "-e", "show api version"}, "2.2.0\n", "", 0},
		{"default keyspace", []string{"--keyspace", "Keyspace1", "-e", "count Standard1['k']"}, "0 columns\n", "", 0},
	} {
		r := runCLI(t, "", append(append([]string{}, addr...), tt.args...)...)
		if r.code != tt.code || r.stdout != tt.stdout || r.stderr != tt.stderr {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr %q",
				tt.name, r.code, r.stdout, r.stderr, tt.code, tt.stdout, tt.stderr)
		}
	}
}

func TestCommandLineErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--port", "0", "-e", "help"}, "thriftd-cli: --port 0 is not a port (1-65535)\n"},
		{[]string{"-e", "help", "-f", "x"}, "thriftd-cli: give -e or -f, not both\n"},
		{[]string{"--username", "alice", "-e", "help"}, "thriftd-cli: --username needs --keyspace: 0.6 logs in to a keyspace\n"},
		{[]string{"--output", "xml", "-e", "help"}, "thriftd-cli: --output is human or json, not \"xml\"\n"},
		{[]string{"show", "keyspaces"}, "thriftd-cli: unexpected argument \"show\" (statements go in -e '...')\n"},
		{[]string{"-f", "/nonexistent/script"}, "thriftd-cli: open /nonexistent/script: no such file or directory\n"},
	} {
		r := runCLI(t, "", tt.args...)
		if r.code != 2 || r.stderr != tt.want || r.stdout != "" {
			t.Errorf("thriftd-cli %q: exit %d, stderr %q; want exit 2, %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
	if r := runCLI(t, "", "--nosuchflag"); r.code != 2 || !strings.HasPrefix(r.stderr, "flag provided but not defined: -nosuchflag\nusage: thriftd-cli") {
		t.Errorf("an unknown flag: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runCLI(t, "", "--help"); r.code != 0 || !strings.Contains(r.stderr, "-keyspace string") {
		t.Errorf("--help: exit %d, stderr %q", r.code, r.stderr)
	}
	// help needs no server.
	if r := runCLI(t, "", "--port", "1", "-e", "help"); r.code != 0 || !strings.HasPrefix(r.stdout, "List of all CLI commands:\n") {
		t.Errorf("help: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestConnectionErrorsNameTheServer(t *testing.T) {
	n := start(t, testConfig)
	addr := hostPort(t, n)
	n.Stop()
	r := runCLI(t, "", append(addr, "-e", "show keyspaces")...)
	want := "cannot connect to " + addr[1] + "/" + addr[3] + ": connection refused\n"
	if r.code != 1 || r.stderr != want || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1, %q", r.code, r.stdout, r.stderr, want)
	}
	r = runCLI(t, "", "-e", "connect 127.0.0.1/1; show keyspaces")
	if r.code != 1 || r.stderr != "cannot connect to 127.0.0.1/1: connection refused\n" {
		t.Errorf("connect: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runCLI(t, "", "-e", "connect no-such-host.invalid/9160")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "cannot connect to no-such-host.invalid/9160: ") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("unknown host: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestConnectInScript(t *testing.T) {
	a, b := start(t, testConfig), start(t, defaultConfig)
	bAddr := hostPort(t, b)
	r := runCLI(t, "", append(hostPort(t, a), "-e", "show keyspaces; connect "+bAddr[1]+"/"+bAddr[3]+"; show keyspaces")...)
	want := "Keyspace1\nKeyspace2\nKeyspace3\nKeyspace4\nsystem\nConnected to: \"Test Cluster\" on " + bAddr[1] + "/" + bAddr[3] + "\nKeyspace1\nsystem\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want %q", r.code, r.stdout, r.stderr, want)
	}
}

func TestLogin(t *testing.T) {
	text, err := os.ReadFile(testConfig)
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(t.TempDir(), "storage-conf.xml")
	auth := bytes.Replace(text, []byte("<Keyspaces>"), []byte("<Authenticator>org.apache.cassandra.auth.SimpleAuthenticator</Authenticator>\n   <Keyspaces>"), 1)
	if err := os.WriteFile(conf, auth, 0o644); err != nil {
		t.Fatal(err)
	}
	n := start(t, conf, "-passwd", testenv.Fixture("passwd.properties"), "-access", testenv.Fixture("access.properties"))
	addr := hostPort(t, n)
	r := runCLI(t, "", append(addr, "--keyspace", "Keyspace1", "--username", "Grace Hopper", "--password", "cobol1959",
		"-e", "set Standard1['k']['c'] = 'v'; count Standard1['k']")...)
	if r.code != 0 || r.stdout != "Value inserted.\n1 columns\n" {
		t.Errorf("login: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", append(addr, "--keyspace", "Keyspace1", "--username", "Grace Hopper", "--password", "fortran",
		"-e", "count Standard1['k']")...)
	if r.code != 1 || r.stderr != "Authentication failed: Given password in password mode PLAIN could not be validated for user Grace Hopper\n" {
		t.Errorf("wrong password: exit %d, stderr %q", r.code, r.stderr)
	}
	r = runCLI(t, "", append(addr, "-e", "count Keyspace1.Standard1['k']")...)
	if r.code != 1 || r.stderr != "Invalid request: Login is required before any other API calls\n" {
		t.Errorf("no login: exit %d, stderr %q", r.code, r.stderr)
	}
}
