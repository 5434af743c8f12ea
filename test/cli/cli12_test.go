package cli

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/internal/testenv"
)

// The 1.2 grammar's transcripts: testdata/cli12/NAME.txt run by the real
// cassandra-cli 1.2.19 against the real 1.2.19 node, recorded by
// testdata/cli12/record into NAME.out, NAME.err and NAME.status.

const cli12Dir = "testdata/cli12"

// referenceCluster is the cluster name of test/cassandra/reference's 1.2
// node; thriftd runs under the same name so "Connected to" and describe
// cluster print the same lines.
const referenceCluster = "thriftd-reference-1.2-random"

var (
	uuidRE    = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	tsRE      = regexp.MustCompile(`timestamp=[0-9]+`)
	elapsedRE = regexp.MustCompile(`Elapsed time: [0-9.]+ msec\(s\)\.`)
)

// normalise12 is the record script's normalise: timestamps, elapsed
// times, UUIDs and the server's address.
func normalise12(s, host, port string) string {
	s = uuidRE.ReplaceAllString(s, "<uuid>")
	s = tsRE.ReplaceAllString(s, "timestamp=<ts>")
	s = elapsedRE.ReplaceAllString(s, "Elapsed time: <t> msec(s).")
	s = strings.ReplaceAll(s, "on "+host+"/"+port, "on <addr>")
	s = strings.ReplaceAll(s, "["+host+"]", "[<addr>]")
	return strings.ReplaceAll(s, "JMX on "+host+":", "JMX on <addr>:")
}

func scripts12(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(cli12Dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in %s: %v", cli12Dir, err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(filepath.Base(f), ".txt"))
	}
	return names
}

type transcript struct{ out, err, status string }

func recorded(t *testing.T, name string) transcript {
	t.Helper()
	read := func(ext string) string {
		b, err := os.ReadFile(filepath.Join(cli12Dir, name+ext))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	return transcript{read(".out"), read(".err"), strings.TrimSpace(read(".status"))}
}

// compare12 checks one run against the recorded transcript: the same
// standard output and error, and the real tool's exit status.
func compare12(t *testing.T, name string, want transcript, out, errOut string, code int) {
	t.Helper()
	if out != want.out {
		t.Errorf("%s: standard output differs from the real cassandra-cli's:\n%s", name, lineDiff(want.out, out))
	}
	if errOut != want.err {
		t.Errorf("%s: standard error differs from the real cassandra-cli's:\n%s", name, lineDiff(want.err, errOut))
	}
	if strconv.Itoa(code) != want.status {
		t.Errorf("%s: exit status %d, the real tool's %s", name, code, want.status)
	}
}

// lineDiff shows the first differing line of two texts.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b || i >= len(w) || i >= len(g) {
			return "line " + strconv.Itoa(i+1) + ":\n  real:      " + a + "\n  thriftd-cli: " + b
		}
	}
	return "(same lines)"
}

// conf12 is the repository's storage-conf.xml with no keyspace, named as
// the reference node's cluster.
func conf12(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(defaultConfig)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	s = s[:strings.Index(s, "<Keyspaces>")] + "<Keyspaces/>" + s[strings.Index(s, "</Keyspaces>")+len("</Keyspaces>"):]
	s = strings.Replace(s, "<ClusterName>Test Cluster</ClusterName>", "<ClusterName>"+referenceCluster+"</ClusterName>", 1)
	path := filepath.Join(t.TempDir(), "storage-conf.xml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCLI12Transcripts runs every script thriftd serves through
// thriftd-cli --api 1.2 against a fresh thriftd and compares the output
// with the real cassandra-cli 1.2.19's recorded transcript.
func TestCLI12Transcripts(t *testing.T) {
	for _, name := range scripts12(t) {
		t.Run(name, func(t *testing.T) {
			n := start(t, conf12(t), "-api", "auto")
			host, port, _ := net.SplitHostPort(n.Addr)
			r := runCLI(t, "", "--api", "1.2", "--host", host, "--port", port, "-f", filepath.Join(cli12Dir, name+".txt"))
			compare12(t, name, recorded(t, name), normalise12(r.stdout, host, port), normalise12(r.stderr, host, port), r.code)
		})
	}
}

// pipedDir holds the scripts fed to the real cassandra-cli on standard
// input (cassandra-cli -h HOST < NAME.txt), which its shell reads: each
// line echoed after its prompt, errors that do not stop it, exit status
// 0. Normalised as the -f transcripts are (normalise12).
const pipedDir = cli12Dir + "/piped"

func pipedScripts(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(pipedDir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in %s: %v", pipedDir, err)
	}
	var names []string
	for _, f := range files {
		names = append(names, "piped/"+strings.TrimSuffix(filepath.Base(f), ".txt"))
	}
	return names
}

// runPiped feeds a piped script to thriftd-cli --api 1.2 on standard
// input and compares the run with the real tool's transcript, exit
// status included.
func runPiped(t *testing.T, name, host, port string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(cli12Dir, name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := recorded(t, name)
	r := runCLI(t, string(src), "--api", "1.2", "--host", host, "--port", port)
	compare12(t, name, want, normalise12(r.stdout, host, port), normalise12(r.stderr, host, port), r.code)
	if strconv.Itoa(r.code) != want.status {
		t.Errorf("%s: exit status %d, the real tool's %s", name, r.code, want.status)
	}
}

// TestCLI12Piped feeds each piped script to thriftd-cli --api 1.2 against
// a fresh thriftd and requires the real cassandra-cli 1.2.19's transcript:
// the banner, every line after its prompt, the output, the errors of the
// statements that fail and the statements after them, and exit status 0.
func TestCLI12Piped(t *testing.T) {
	for _, name := range pipedScripts(t) {
		t.Run(name, func(t *testing.T) {
			n := start(t, conf12(t), "-api", "auto")
			host, port, _ := net.SplitHostPort(n.Addr)
			runPiped(t, name, host, port)
		})
	}
}

// TestCLI12ShowSchemaReloads loads show schema's output with -f into a
// fresh keyspace and checks that it describes the same schema.
func TestCLI12ShowSchemaReloads(t *testing.T) {
	n := start(t, conf12(t), "-api", "auto")
	host, port, _ := net.SplitHostPort(n.Addr)
	args := []string{"--api", "1.2", "--host", host, "--port", port}
	dir := t.TempDir()
	script := filepath.Join(dir, "make.txt")
	src, err := os.ReadFile(filepath.Join(cli12Dir, "schema.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// The schema script without its drops, then its schema.
	body := strings.Split(string(src), "describe;")[0] + "show schema ShellSchema;\n"
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", append(args, "-f", script)...)
	if r.code != 0 {
		t.Fatalf("creating the schema: %d %s", r.code, r.stderr)
	}
	schema := r.stdout[strings.Index(r.stdout, "create keyspace ShellSchema"):]
	reload := strings.ReplaceAll(schema, "ShellSchema", "ShellReload")
	if err := os.WriteFile(filepath.Join(dir, "reload.txt"), []byte(reload), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "", append(args, "-f", filepath.Join(dir, "reload.txt"))...)
	if r.code != 0 {
		t.Fatalf("reloading show schema's output: %d %s", r.code, r.stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "show.txt"), []byte("show schema ShellReload;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "", append(args, "-f", filepath.Join(dir, "show.txt"))...)
	got := r.stdout[strings.Index(r.stdout, "create keyspace"):]
	if got != reload {
		t.Fatalf("the reloaded keyspace's schema differs:\n%s", lineDiff(reload, got))
	}
}

// TestCLI12LiveReference is the live check: thriftd-cli --api 1.2 against
// the real 1.2.19 node runs every script that cleans up after itself,
// counters and indexes included, and must print the recorded transcripts;
// the real cassandra-cli then runs one script again, so a recording that
// no longer matches the real tool fails here.
func TestCLI12LiveReference(t *testing.T) {
	addr := testenv.Reference(t, "1.2", "random")
	host, port, _ := net.SplitHostPort(addr)
	for _, name := range scripts12(t) {
		want := recorded(t, name)
		if want.status != "0" || strings.HasPrefix(name, "err-") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			dropLeftovers(t, host, port, name)
			r := runCLI(t, "", "--api", "1.2", "--host", host, "--port", port, "-f", filepath.Join(cli12Dir, name+".txt"))
			compare12(t, name, want, normalise12(r.stdout, host, port), normalise12(r.stderr, host, port), r.code)
		})
	}
	for _, name := range pipedScripts(t) {
		t.Run(name, func(t *testing.T) {
			dropLeftovers(t, host, port, name)
			runPiped(t, name, host, port)
		})
	}
	t.Run("real cassandra-cli", func(t *testing.T) {
		dropLeftovers(t, host, port, "data")
		out, errOut, code := realCLI(t, host, port, "", "-f", filepath.Join(cli12Dir, "data.txt"))
		compare12(t, "data (real cassandra-cli)", recorded(t, "data"), normalise12(out, host, port), normalise12(errOut, host, port), code)
	})
	t.Run("real cassandra-cli piped", func(t *testing.T) {
		dropLeftovers(t, host, port, "piped/piped")
		src, err := os.ReadFile(filepath.Join(pipedDir, "piped.txt"))
		if err != nil {
			t.Fatal(err)
		}
		out, errOut, code := realCLI(t, host, port, string(src))
		want := recorded(t, "piped/piped")
		compare12(t, "piped (real cassandra-cli)", want, normalise12(out, host, port), normalise12(errOut, host, port), code)
		if strconv.Itoa(code) != want.status {
			t.Errorf("piped (real cassandra-cli): exit status %d, recorded %s", code, want.status)
		}
	})
	// The real tool against thriftd prints what it prints against 1.2.19:
	// describe and show schema list column_metadata in the node's order.
	t.Run("real cassandra-cli piped against thriftd", func(t *testing.T) {
		n := start(t, conf12(t), "-api", "auto")
		thost, tport, _ := net.SplitHostPort(n.Addr)
		src, err := os.ReadFile(filepath.Join(pipedDir, "piped.txt"))
		if err != nil {
			t.Fatal(err)
		}
		out, errOut, code := realCLI(t, thost, tport, string(src))
		want := recorded(t, "piped/piped")
		compare12(t, "piped (real cassandra-cli against thriftd)", want, normalise12(out, thost, tport), normalise12(errOut, thost, tport), code)
	})
}

// realCLI runs the real cassandra-cli 1.2.19 against host and port with
// stdin, in a home of its own (it reads and writes
// ~/.cassandra/assumptions.json there).
func realCLI(t *testing.T, host, port, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	home, _ := os.UserHomeDir()
	cache := os.Getenv("THRIFTD_REFERENCE_CACHE")
	if cache == "" {
		cache = filepath.Join(home, ".cache", "thriftd")
	}
	java := os.Getenv("THRIFTD_REFERENCE_JAVA")
	if java == "" {
		java = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
	}
	cmd := exec.Command(java, append([]string{"-Xmx256M", "-Duser.home=" + t.TempDir(), "--add-opens=java.base/java.lang=ALL-UNNAMED",
		"--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
		"-cp", filepath.Join(cache, "cassandra-1.2.19-reference", "lib", "*"), "org.apache.cassandra.cli.CliMain",
		"-h", host, "-p", port}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("running the real cassandra-cli: %v", err)
		}
		code = ee.ExitCode()
	}
	return out.String(), errOut.String(), code
}

var createKeyspaceRE = regexp.MustCompile(`(?i)create keyspace ([A-Za-z0-9_]+)`)

// dropLeftovers drops, on the shared reference node, the keyspaces a
// script creates, in case an interrupted run left them behind.
func dropLeftovers(t *testing.T, host, port, name string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(cli12Dir, name+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range createKeyspaceRE.FindAllStringSubmatch(string(src), -1) {
		runCLI(t, "", "--api", "1.2", "--host", host, "--port", port, "-e", "drop keyspace "+m[1]+";")
	}
}

// TestCLI12Inline runs statements given with -e, and a failing one: its
// Line N message and exit status 4, as cassandra-cli 1.2 exits.
func TestCLI12Inline(t *testing.T) {
	n := start(t, conf12(t), "-api", "auto")
	host, port, _ := net.SplitHostPort(n.Addr)
	args := []string{"--api", "1.2", "--host", host, "--port", port}
	r := runCLI(t, "", append(args, "-e", "show cluster name; consistencylevel as ALL;")...)
	want := `Connected to: "` + referenceCluster + `" on ` + host + "/" + port + "\n" + referenceCluster + "\nConsistency level is set to 'ALL'.\n"
	if r.code != 0 || r.stdout != want || r.stderr != "" {
		t.Fatalf("-e: exit %d, stdout %q (want %q), stderr %q", r.code, r.stdout, want, r.stderr)
	}
	r = runCLI(t, "", append(args, "-e", "show cluster name; use Nowhere; show cluster name;")...)
	if r.code != 4 || r.stderr != "Line 2 => Keyspace 'Nowhere' not found.\n" || strings.Count(r.stdout, referenceCluster+"\n") != 1 {
		t.Fatalf("-e with an error: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// connect moves to a server named by address and port; --keyspace
	// uses a keyspace at each connection, silently as cassandra-cli -k
	// does.
	r = runCLI(t, "", append(args, "-e", "create keyspace Here with placement_strategy = 'SimpleStrategy' and strategy_options = {replication_factor : 1};")...)
	if r.code != 0 {
		t.Fatalf("create keyspace: exit %d, %s", r.code, r.stderr)
	}
	r = runCLI(t, "", append(args, "--keyspace", "Here", "-e", "connect "+host+"/"+port+"; describe cluster; describe;")...)
	connected := `Connected to: "` + referenceCluster + `" on ` + host + "/" + port + "\n"
	if r.code != 0 || strings.Count(r.stdout, connected) != 2 || !strings.Contains(r.stdout, "   Partitioner: org.apache.cassandra.dht.RandomPartitioner\n") ||
		!strings.Contains(r.stdout, "\nKeyspace: Here:\n") || strings.Contains(r.stdout, "Authenticated") {
		t.Fatalf("connect: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// A keyspace that cannot be used is said in place of the Connected
	// line; the connection stays.
	r = runCLI(t, "", append(args, "--keyspace", "Nowhere", "-e", "show cluster name;")...)
	if r.code != 0 || r.stdout != referenceCluster+"\n" || r.stderr != "Keyspace 'Nowhere' not found.\n" {
		t.Fatalf("--keyspace Nowhere: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "--api", "1.2", "--output", "json", "-e", "show cluster name;")
	if r.code != 2 {
		t.Fatalf("--api 1.2 --output json: exit %d, want 2 (%s)", r.code, r.stderr)
	}
}
