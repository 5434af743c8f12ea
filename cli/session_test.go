package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thriftd/thriftd/internal/testenv"
)

// These tests run statements through a Session against a real thriftd
// over TCP, and check the printed lines exactly.

// thriftd is built on first use, so that the parser's tests and fuzz
// target run without it.
var (
	buildOnce  sync.Once
	thriftdBin string
	buildErr   error
	cleanup    func()
)

func TestMain(m *testing.M) {
	code := m.Run()
	if cleanup != nil {
		cleanup()
	}
	os.Exit(code)
}

// testConfig is Cassandra 0.6's test configuration: every comparator and
// both column family types.
var testConfig = testenv.Fixture("storage-conf-0.6-test.xml")

func startNode(t *testing.T, config string, extra ...string) *testenv.Node {
	t.Helper()
	buildOnce.Do(func() { thriftdBin, cleanup, buildErr = testenv.Thriftd(true) })
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	n := testenv.NewNode(t, thriftdBin, config, extra...)
	n.Start()
	return n
}

// shell is a session printing into buffers, with a clock that starts at
// 0.6's example timestamp and moves one millisecond per write.
type shell struct {
	t        *testing.T
	s        *Session
	out, err bytes.Buffer
}

func newShell(t *testing.T, n *testenv.Node, cfg Config, json bool) *shell {
	t.Helper()
	host, port, err := net.SplitHostPort(n.Addr)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Host = host
	cfg.Port, _ = strconv.Atoi(port)
	sh := &shell{t: t}
	var p Printer = &HumanPrinter{Out: &sh.out, Err: &sh.err}
	if json {
		p = &JSONPrinter{Out: &sh.out, Err: &sh.err}
	}
	sh.s = NewSession(cfg, p)
	clock := time.UnixMilli(1262736145089)
	sh.s.now = func() time.Time { clock = clock.Add(time.Millisecond); return clock }
	t.Cleanup(sh.s.Close)
	return sh
}

// run runs a script and returns what it printed to standard output and
// to standard error, and its error.
func (sh *shell) run(src string) (string, string, error) {
	sh.out.Reset()
	sh.err.Reset()
	err := RunScript(context.Background(), sh.s, src)
	return sh.out.String(), sh.err.String(), err
}

// expect runs a script that must succeed and print want.
func (sh *shell) expect(src, want string) {
	sh.t.Helper()
	out, errOut, err := sh.run(src)
	if err != nil || errOut != "" {
		sh.t.Fatalf("%s: %v\n%s", src, err, errOut)
	}
	if out != want {
		sh.t.Fatalf("%s printed\n%s\nwant\n%s", src, out, want)
	}
}

// expectErr runs a script that must fail with the error line want.
func (sh *shell) expectErr(src, want string) {
	sh.t.Helper()
	_, errOut, err := sh.run(src)
	if err == nil {
		sh.t.Fatalf("%s succeeded; want the error %q", src, want)
	}
	if errOut != want+"\n" {
		sh.t.Fatalf("%s printed the error %q, want %q", src, errOut, want)
	}
}

func TestStandardColumns(t *testing.T) {
	sh := newShell(t, startNode(t, testConfig), Config{}, false)
	sh.expect("set Keyspace1.Standard1['jsmith']['first'] = 'John'", "Value inserted.\n")
	sh.expect(`set Keyspace1.Standard1['jsmith']['last'] = 'Smith'
set Keyspace1.Standard1['jsmith']['age'] = '42'`, "Value inserted.\nValue inserted.\n")
	sh.expect("get Keyspace1.Standard1['jsmith']", `=> (column=age, value=42, timestamp=1262736145092000)
=> (column=first, value=John, timestamp=1262736145090000)
=> (column=last, value=Smith, timestamp=1262736145091000)
Returned 3 results.
`)
	sh.expect("get Keyspace1.Standard1['jsmith']['first']", "=> (column=first, value=John, timestamp=1262736145090000)\n")
	sh.expect("count Keyspace1.Standard1['jsmith']", "3 columns\n")
	sh.expect("del Keyspace1.Standard1['jsmith']['age']; count Keyspace1.Standard1['jsmith']", "column removed.\n2 columns\n")
	sh.expect("del Keyspace1.Standard1['jsmith']; get Keyspace1.Standard1['jsmith']", "row removed.\nReturned 0 results.\n")
	// Quotes inside strings, both ways, and a value that is not text.
	sh.expect(`set Keyspace1.Standard1['o\'brien']['it''s'] = 'Pat\'s'; set Keyspace1.Standard1['o\'brien']['raw'] = 0x00ff`,
		"Value inserted.\nValue inserted.\n")
	sh.expect(`get Keyspace1.Standard1['o''brien']`, `=> (column=it's, value=Pat's, timestamp=1262736145095000)
=> (column=raw, value=0x00ff, timestamp=1262736145096000)
Returned 2 results.
`)
}

func TestSlices(t *testing.T) {
	sh := newShell(t, startNode(t, testConfig), Config{PageSize: 3}, false)
	var script strings.Builder
	for _, c := range "abcdefghij" {
		script.WriteString("set Keyspace1.Standard1['row'][0x" + strconv.FormatInt(int64(c), 16) + "] = '" + string(c) + string(c) + "'\n")
	}
	if _, errOut, err := sh.run(script.String()); err != nil {
		t.Fatal(err, errOut)
	}
	names := func(out string) string {
		var b strings.Builder
		for _, l := range strings.Split(out, "\n") {
			if n, ok := strings.CutPrefix(l, "=> (column="); ok {
				b.WriteString(n[:1])
			} else if l != "" {
				b.WriteString(" | " + l)
			}
		}
		return b.String()
	}
	for _, tt := range []struct{ src, want string }{
		// Ten columns through pages of three.
		{"get Keyspace1.Standard1['row']", "abcdefghij | Returned 10 results."},
		{"get Keyspace1.Standard1['row'] limit 4", "abcd | Returned 4 results."},
		{"get Keyspace1.Standard1['row'] limit 3", "abc | Returned 3 results."},
		{"get Keyspace1.Standard1['row'] reversed", "jihgfedcba | Returned 10 results."},
		{"get Keyspace1.Standard1['row'] reversed limit 5", "jihgf | Returned 5 results."},
		{"get Keyspace1.Standard1['row']['c':'h']", "cdefgh | Returned 6 results."},
		{"get Keyspace1.Standard1['row']['c':'h'] limit 4", "cdef | Returned 4 results."},
		{"get Keyspace1.Standard1['row']['h':'c'] reversed", "hgfedc | Returned 6 results."},
		{"get Keyspace1.Standard1['row']['g':]", "ghij | Returned 4 results."},
		{"get Keyspace1.Standard1['row'][:'b']", "ab | Returned 2 results."},
		{"get Keyspace1.Standard1['row'][:]", "abcdefghij | Returned 10 results."},
		{"get Keyspace1.Standard1['row']['x':]", " | Returned 0 results."},
		{"get Keyspace1.Standard1['nothing'] limit 2", " | Returned 0 results."},
	} {
		out, errOut, err := sh.run(tt.src)
		if err != nil {
			t.Fatalf("%s: %v %s", tt.src, err, errOut)
		}
		if got := names(out); got != tt.want {
			t.Errorf("%s printed %q, want %q\n%s", tt.src, got, tt.want, out)
		}
	}
	sh.expectErr("get Keyspace1.Standard1['row']['c':'a']", "Invalid request: range finish must come after start in the order of traversal")
}

func TestTypedNames(t *testing.T) {
	sh := newShell(t, startNode(t, testConfig), Config{}, false)
	sh.expect("set Keyspace1.StandardLong1['k'][42] = 'v'; set Keyspace1.StandardLong1['k'][-7] = long(7); set Keyspace1.StandardLong1['k']['1000'] = 'w'",
		"Value inserted.\nValue inserted.\nValue inserted.\n")
	sh.expect("get Keyspace1.StandardLong1['k']", `=> (column=-7, value=0x0000000000000007, timestamp=1262736145091000)
=> (column=42, value=v, timestamp=1262736145090000)
=> (column=1000, value=w, timestamp=1262736145092000)
Returned 3 results.
`)
	sh.expect("get Keyspace1.StandardLong1['k'][0:100]", `=> (column=42, value=v, timestamp=1262736145090000)
Returned 1 results.
`)
	sh.expect("get Keyspace1.StandardLong1['k'][-7]", "=> (column=-7, value=0x0000000000000007, timestamp=1262736145091000)\n")
	sh.expectErr("set Keyspace1.StandardLong1['k']['x'] = 'v'", "'x' is not a number, and names sorted by LongType are 64-bit integers")
	sh.expectErr("set Keyspace1.StandardLong1['k'][0x01] = 'v'", "0x01 is not a valid LongType name: A long is exactly 8 bytes")

	// Keyspace2.Super4 sorts sub-columns by TimeUUIDType.
	sh.expect("set Keyspace2.Super4['k']['sc'][timeuuid()] = 'first'; set Keyspace2.Super4['k']['sc'][timeuuid()] = 'second'",
		"Value inserted.\nValue inserted.\n")
	out, _, err := sh.run("get Keyspace2.Super4['k']['sc']")
	lines := strings.Split(out, "\n")
	if err != nil || len(lines) != 4 || !strings.Contains(lines[0], "value=first") || !strings.Contains(lines[1], "value=second") {
		t.Fatalf("get of two timeuuid() columns printed\n%s%v", out, err)
	}
	// The name shown is a canonical UUID that reads back as the same column.
	id := strings.TrimPrefix(strings.SplitN(lines[1], ",", 2)[0], "=> (column=")
	if len(id) != 36 || id[14] != '1' {
		t.Fatalf("the name %q is not a canonical version 1 UUID", id)
	}
	sh.expect("get Keyspace2.Super4['k']['sc']["+id+"]", lines[1]+"\n")
	sh.expect("get Keyspace2.Super4['k']['sc']['"+id+"']", lines[1]+"\n")
	sh.expectErr("set Keyspace2.Super4['k']['sc'][550e8400-e29b-41d4-a716-446655440000] = 'v'",
		"550e8400-e29b-41d4-a716-446655440000 is not a valid TimeUUIDType name: Invalid version for TimeUUID type.")
}

func TestSuperColumns(t *testing.T) {
	sh := newShell(t, startNode(t, testConfig), Config{Keyspace: "Keyspace1"}, false)
	// Keyspace1.Super4 sorts super columns by BytesType, sub-columns by UTF8Type.
	sh.expect(`set Super4['jsmith']['address']['city'] = 'Austin'
set Super4['jsmith']['address']['zip'] = '78701'
set Super4['jsmith']['phone']['home'] = '555-0100'`, "Value inserted.\nValue inserted.\nValue inserted.\n")
	sh.expect("get Super4['jsmith']", `=> (super_column=address,
     (column=city, value=Austin, timestamp=1262736145090000)
     (column=zip, value=78701, timestamp=1262736145091000))
=> (super_column=phone,
     (column=home, value=555-0100, timestamp=1262736145092000))
Returned 2 results.
`)
	sh.expect("get Super4['jsmith']['address']", `=> (column=city, value=Austin, timestamp=1262736145090000)
=> (column=zip, value=78701, timestamp=1262736145091000)
Returned 2 results.
`)
	sh.expect("get Super4['jsmith']['address']['zip']", "=> (column=zip, value=78701, timestamp=1262736145091000)\n")
	sh.expect("count Super4['jsmith']; count Super4['jsmith']['address']", "2 columns\n2 columns\n")
	sh.expect("del Super4['jsmith']['address']['zip']; count Super4['jsmith']['address']", "column removed.\n1 columns\n")
	sh.expect("del Super4['jsmith']['phone']; count Super4['jsmith']", "column removed.\n1 columns\n")
	sh.expectErr("set Super4['jsmith']['address'] = 'x'", "Super4 is a super column family: set Super4['key']['super']['column'] = 'value'")
	sh.expectErr("count Standard1['jsmith']['x']", "count counts a row's columns (count Standard1['key']) or a super column's sub-columns (count Super1['key']['super'])")
}

func TestShowAndDescribe(t *testing.T) {
	n := startNode(t, testConfig)
	sh := newShell(t, n, Config{}, false)
	sh.expect("show keyspaces", "Keyspace1\nKeyspace2\nKeyspace3\nKeyspace4\nsystem\n")
	sh.expect("show cluster name; show api version", "Test Cluster\n2.2.0\n")
	text, err := os.ReadFile(testConfig)
	if err != nil {
		t.Fatal(err)
	}
	sh.expect("show config file", strings.TrimSuffix(string(text), "\n")+"\n")
	sh.expect("describe keyspace Keyspace2", `Column Family Name: Standard1
Column Family Type: Standard
Column Sorted By: org.apache.cassandra.db.marshal.BytesType
------
Column Family Name: Standard3
Column Family Type: Standard
Column Sorted By: org.apache.cassandra.db.marshal.BytesType
------
Column Family Name: Super3
Column Family Type: Super
Column Sorted By: org.apache.cassandra.db.marshal.BytesType
Sub-Columns Sorted By: org.apache.cassandra.db.marshal.BytesType
------
Column Family Name: Super4
Column Family Type: Super
Column Sorted By: org.apache.cassandra.db.marshal.BytesType
Sub-Columns Sorted By: org.apache.cassandra.db.marshal.TimeUUIDType
------
`)
	sh.expect("describe keyspace system", `Column Family Name: HintsColumnFamily
Column Family Type: Super
Column Sorted By: org.apache.cassandra.db.marshal.BytesType
Sub-Columns Sorted By: org.apache.cassandra.db.marshal.BytesType
Description: hinted handoff data
------
Column Family Name: LocationInfo
Column Family Type: Standard
Column Sorted By: org.apache.cassandra.db.marshal.BytesType
Description: persistent metadata for the local node
------
`)
	sh.expectErr("describe keyspace Nowhere", "Keyspace Nowhere could not be found.")
	sh.expectErr("describe keyspace", "describe keyspace needs a keyspace name (or 'use <keyspace>' first)")
	sh.expect("use Keyspace3; describe keyspace", `Column Family Name: Standard1
Column Family Type: Standard
Column Sorted By: org.apache.cassandra.db.marshal.BytesType
------
`)
	sh.expect("help", helpText)
	sh.expect("?", helpText)
}

func TestErrors(t *testing.T) {
	n := startNode(t, testConfig)
	sh := newShell(t, n, Config{}, false)
	sh.expectErr("get Keyspace1.Standard1['jsmith']['nope']", "Not found.")
	sh.expectErr("get Keyspace9.Standard1['jsmith']", "No such keyspace: Keyspace9")
	sh.expectErr("get Keyspace1.Standard9['jsmith']", "No such column family: Standard9")
	sh.expectErr("get Standard1['jsmith']", "no keyspace for Standard1: write Keyspace.Standard1, or 'use <keyspace>' first")
	sh.expectErr("set Keyspace1.Standard1['jsmith'] = 'v'", "No column name specified, (type 'help' or '?' for help on syntax).")
	sh.expectErr("set Keyspace1.Standard1['jsmith']['a']['b'] = 'v'", "Standard1 is a standard column family: set Standard1['key']['column'] = 'value'")
	sh.expectErr("get Keyspace1.Standard1['jsmith']['a'] limit 2", "limit and reversed apply to slices, not to a single column")
	// The server's own InvalidRequestException, word for word.
	sh.expectErr("set Keyspace1.Standard1['jsmith'][''] = 'v'", "Invalid request: column name must not be empty")
	sh.expectErr("set system.LocationInfo['k']['c'] = 'v'", "Invalid request: Keyspace system is maintained by the server and may not be written to")
	// A syntax error anywhere runs nothing.
	_, errOut, err := sh.run("set Keyspace1.Standard1['a']['b'] = 'ran'\nget Keyspace1.Standard1['a'] limit")
	if err == nil || errOut != "syntax error at line 2, column 35: expected a count from 1 to 2147483647 after limit, found end of input\n" {
		t.Fatalf("got %v %q", err, errOut)
	}
	sh.expect("count Keyspace1.Standard1['a']", "0 columns\n")
	// The script stops at the first failure.
	out, _, err := sh.run("set Keyspace1.Standard1['a']['b'] = 'x'; get Keyspace1.Nope['a']; set Keyspace1.Standard1['a']['c'] = 'x'")
	if err == nil || out != "Value inserted.\n" {
		t.Fatalf("printed %q, %v; want one insert then the error", out, err)
	}
	sh.expect("quit; show api version", "")

	// The server going away: the error names it, and the next statement
	// reconnects once it is back.
	n.Stop()
	// EOF, or a reset if the request reached the closed socket first.
	_, errOut, err = sh.run("show api version")
	if err == nil || !strings.HasPrefix(errOut, "lost the connection to "+hostPort(n)+": ") || !strings.HasSuffix(errOut, " (the next command reconnects)\n") {
		t.Fatalf("after thriftd stopped: %v %q", err, errOut)
	}
	sh.expectErr("show api version", "cannot connect to "+hostPort(n)+": connection refused")
}

func hostPort(n *testenv.Node) string {
	host, port, _ := net.SplitHostPort(n.Addr)
	return host + "/" + port
}

func TestConnectStatement(t *testing.T) {
	a, b := startNode(t, testConfig), startNode(t, filepath.Join(testenv.RepoRoot(), "storage-conf.xml"))
	sh := newShell(t, a, Config{}, false)
	sh.expect("show keyspaces", "Keyspace1\nKeyspace2\nKeyspace3\nKeyspace4\nsystem\n")
	sh.expect("connect "+hostPort(b)+"; show keyspaces", "Connected to: \"Test Cluster\" on "+hostPort(b)+"\nKeyspace1\nsystem\n")
	sh.expectErr("connect 127.0.0.1/1", "cannot connect to 127.0.0.1/1: connection refused")
}

func TestFramed(t *testing.T) {
	sh := newShell(t, startNode(t, testConfig), Config{Framed: true}, false)
	sh.expect("show api version", "2.2.0\n")
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
	n := startNode(t, conf, "-passwd", testenv.Fixture("passwd.properties"), "-access", testenv.Fixture("access.properties"))

	anon := newShell(t, n, Config{}, false)
	anon.expectErr("get Keyspace1.Standard1['k']", "Invalid request: Login is required before any other API calls")

	alice := newShell(t, n, Config{Keyspace: "Keyspace1", Username: "alice", Password: "wonderland7"}, false)
	alice.expect("set Standard1['k']['c'] = 'v'; count Standard1['k']", "Value inserted.\n1 columns\n")
	// use logs in to the new keyspace; refused, the old one stays.
	alice.expectErr("use Keyspace2", "Not authorized: User alice could not be authorized to use keyspace Keyspace2")
	if ks := alice.s.Keyspace(); ks != "Keyspace1" {
		t.Errorf("after a refused use, the keyspace is %q", ks)
	}
	alice.expect("count Standard1['k']", "1 columns\n")

	wrong := newShell(t, n, Config{Keyspace: "Keyspace1", Username: "alice", Password: "guess"}, false)
	wrong.expectErr("count Standard1['k']", "Authentication failed: Given password in password mode PLAIN could not be validated for user alice")
	// The refused login is tried again, not skipped.
	wrong.expectErr("count Standard1['k']", "Authentication failed: Given password in password mode PLAIN could not be validated for user alice")

	bob := newShell(t, n, Config{Keyspace: "Keyspace1", Username: "bob", Password: "builder42"}, false)
	bob.expectErr("count Standard1['k']", "Not authorized: User bob could not be authorized to use keyspace Keyspace1")
}

func TestJSONOutput(t *testing.T) {
	sh := newShell(t, startNode(t, testConfig), Config{Keyspace: "Keyspace1"}, true)
	sh.expect("set Standard1['jsmith']['first'] = 'John'", `{"ok":"Value inserted."}`+"\n")
	sh.expect("get Standard1['jsmith']", `{"results":[{"column":{"name":"first","value":"John","timestamp":1262736145090000}}],"returned":1}`+"\n")
	sh.expect("get Standard1['jsmith']['first']", `{"column":{"name":"first","value":"John","timestamp":1262736145090000}}`+"\n")
	sh.expect("count Standard1['jsmith']", `{"count":1}`+"\n")
	sh.expect("set Super4['k']['sc']['c'] = 'v'; get Super4['k']",
		`{"ok":"Value inserted."}`+"\n"+`{"results":[{"super_column":{"name":"sc","columns":[{"name":"c","value":"v","timestamp":1262736145091000}]}}],"returned":1}`+"\n")
	sh.expect("show api version; show keyspaces", `{"api_version":"2.2.0"}`+"\n"+`{"keyspaces":["Keyspace1","Keyspace2","Keyspace3","Keyspace4","system"]}`+"\n")
	sh.expect("describe keyspace Keyspace3", `{"column_families":[{"name":"Standard1","type":"Standard","compare_with":"org.apache.cassandra.db.marshal.BytesType"}],"keyspace":"Keyspace3"}`+"\n")
	sh.expectErr("get Standard1['jsmith']['nope']", `{"error":"Not found."}`)

	// The configuration file comes whole, its markup unescaped.
	out, _, err := sh.run("show config file")
	var got map[string]string
	if err != nil || json.Unmarshal([]byte(out), &got) != nil {
		t.Fatalf("show config file printed %q, %v", out, err)
	}
	text, err := os.ReadFile(testConfig)
	if err != nil {
		t.Fatal(err)
	}
	if got["config_file"] != strings.TrimSuffix(string(text), "\n") || !strings.Contains(out, "<Keyspaces>") {
		t.Errorf("show config file printed %q", out)
	}
}

func TestCompletion(t *testing.T) {
	sh := newShell(t, startNode(t, testConfig), Config{}, false)
	c := &Completer{Session: sh.s, Ctx: context.Background()}
	do := func(line string) []string {
		cands, n := c.Do([]rune(line), len([]rune(line)))
		out := make([]string, len(cands))
		for i, cand := range cands {
			out[i] = line[:len(line)-n] + line[len(line)-n:] + string(cand)
		}
		return out
	}
	// Before the shell has connected, names do not complete, and
	// completing does not connect.
	if got := do("get Keys"); len(got) != 0 || sh.s.Connected() {
		t.Fatalf("completing before connecting gave %q, connected %v", got, sh.s.Connected())
	}
	sh.expect("show api version", "2.2.0\n")
	for _, tt := range []struct {
		line string
		want []string
	}{
		{"", []string{"connect ", "count ", "del ", "describe ", "exit ", "get ", "help ", "quit ", "set ", "show ", "use "}},
		{"g", []string{"get "}},
		{"GE", []string{"GET "}},
		{"co", []string{"connect ", "count "}},
		{"show c", []string{"show cluster name", "show config file"}},
		{"describe k", []string{"describe keyspace "}},
		{"describe keyspace Keyspace", []string{"describe keyspace Keyspace1", "describe keyspace Keyspace2", "describe keyspace Keyspace3", "describe keyspace Keyspace4"}},
		{"use sy", []string{"use system"}},
		{"get Keyspace3", []string{"get Keyspace3."}},
		{"get Keyspace1.StandardL", []string{"get Keyspace1.StandardLong1", "get Keyspace1.StandardLong2"}},
		{"get Keyspace2.Su", []string{"get Keyspace2.Super3", "get Keyspace2.Super4"}},
		{"help; del Keyspace3.S", []string{"help; del Keyspace3.Standard1"}},
		{"get Nowhere.S", []string{}},
		{"set Keyspace1.Standard1['k'][", []string{}},
	} {
		got := do(tt.line)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("completing %q gave %q, want %q", tt.line, got, tt.want)
		}
	}
	// With a default keyspace, its column families complete alone too.
	sh.expect("use Keyspace3", "")
	if got := do("count St"); strings.Join(got, "|") != "count Standard1" {
		t.Errorf("completing %q with keyspace Keyspace3 gave %q", "count St", got)
	}
}

// cancellingPrinter cancels its context at the first column printed, as
// Ctrl-C in the middle of a long get does.
type cancellingPrinter struct {
	*HumanPrinter
	cancel context.CancelFunc
}

func (p cancellingPrinter) Column(c Column) {
	p.HumanPrinter.Column(c)
	p.cancel()
}

func TestInterruptedSliceStopsAtThePage(t *testing.T) {
	sh := newShell(t, startNode(t, testConfig), Config{PageSize: 3}, false)
	sh.expect("set Keyspace1.Standard1['row']['a'] = '1'; set Keyspace1.Standard1['row']['b'] = '2'; set Keyspace1.Standard1['row']['c'] = '3'; set Keyspace1.Standard1['row']['d'] = '4'",
		"Value inserted.\nValue inserted.\nValue inserted.\nValue inserted.\n")
	stmts, err := Parse("get Keyspace1.Standard1['row']")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	sh.s.out = cancellingPrinter{&HumanPrinter{Out: &out, Err: &out}, cancel}
	err = sh.s.Exec(ctx, stmts[0])
	if err == nil || err.Error() != "Interrupted after 3 results." {
		t.Fatalf("Exec = %v, want the interruption after the first page", err)
	}
	if strings.Count(out.String(), "=> (column=") != 3 {
		t.Fatalf("printed\n%s\nwant the first page of three", out.String())
	}
}
