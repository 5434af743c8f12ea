package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/internal/testenv"
)

// These tests run the real binary on configuration files of their own.

var thriftdBin string

func TestMain(m *testing.M) { testenv.Main(m, true, &thriftdBin) }

// configDir returns a directory holding a copy of the repository's
// storage-conf.xml and a thriftd.yaml with this text.
func configDir(t *testing.T, yaml string) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	xml, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "storage-conf.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "storage-conf.xml"), xml, 0o644); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(dir, "thriftd.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// yamlOnly is a thriftd.yaml that sets everything the harness needs: a
// free port, a data directory beside it, JSON logs.
const yamlOnly = `# relative names resolve against this file's directory
storage_conf: storage-conf.xml
listen: 127.0.0.1:0
data: yamldata
limits:
  max_connections: 1000
log:
  level: debug
  format: json
`

// roundTrip writes a column and reads it back through a real client.
func roundTrip(t *testing.T, addr string) error {
	t.Helper()
	c, err := testenv.Dial(addr, false, 10*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := context.Background()
	p := &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}
	if err := c.Insert(ctx, "Keyspace1", "k", p, []byte("v"), 1, cassandra.ConsistencyLevel_ONE); err != nil {
		return err
	}
	got, err := c.Get(ctx, "Keyspace1", "k", p, cassandra.ConsistencyLevel_ONE)
	if err != nil {
		return err
	}
	if string(got.Column.Value) != "v" {
		return errors.New("read back " + string(got.Column.Value))
	}
	return nil
}

// TestServesFromThriftdYAMLAlone starts thriftd with -config thriftd.yaml
// and nothing else, from another working directory: the address, the data
// directory and the log format come from the file, the schema from the
// storage-conf.xml it names.
func TestServesFromThriftdYAMLAlone(t *testing.T) {
	dir, path := configDir(t, yamlOnly)
	n := testenv.NewNodeArgs(t, thriftdBin, "-config", path)
	n.Start()
	if err := roundTrip(t, n.Addr); err != nil {
		t.Fatal(err)
	}
	serving := n.WaitLog(t, time.Second, map[string]string{"msg": "thriftd is serving"})
	if got, want := testenv.LogValue(serving["data"]), filepath.Join(dir, "yamldata"); got != want {
		t.Errorf("serving data %s, want %s", got, want)
	}
	if got := testenv.LogValue(serving["settings"]); got != path {
		t.Errorf("serving settings %s, want %s", got, path)
	}
	if _, err := os.Stat(filepath.Join(dir, "yamldata", "CURRENT")); err != nil {
		t.Errorf("no LevelDB store in the data directory the file names: %v", err)
	}
}

// TestFlagOverridesTheFile gives -data and -max-connections over the keys
// of thriftd.yaml: the store is where the flag says, and a second
// connection is refused.
func TestFlagOverridesTheFile(t *testing.T) {
	dir, path := configDir(t, yamlOnly)
	data := filepath.Join(t.TempDir(), "flagdata")
	n := testenv.NewNodeArgs(t, thriftdBin, "-config", path, "-data", data, "-max-connections", "1")
	n.Start()
	first, err := testenv.Dial(n.Addr, false, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if _, err := first.DescribeVersion(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := roundTrip(t, n.Addr); err == nil {
		t.Error("a second connection was served with -max-connections 1 over max_connections: 1000")
	}
	if _, err := os.Stat(filepath.Join(data, "CURRENT")); err != nil {
		t.Errorf("no store where -data says: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "yamldata")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the data directory of thriftd.yaml was used despite -data: %v", err)
	}
}

// runBinary runs thriftd to completion in a fresh working directory.
func runBinary(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := exec.Command(thriftdBin, args...)
	cmd.Dir = t.TempDir()
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// TestPrintConfigReadsBack prints the effective configuration of a file and
// flags, saves it elsewhere, and serves from it: the same settings.
func TestPrintConfigReadsBack(t *testing.T) {
	dir, path := configDir(t, yamlOnly)
	printed, stderr, err := runBinary(t, "-config", path, "-idle-timeout", "90s", "-print-config")
	if err != nil {
		t.Fatalf("-print-config: %v\n%s", err, stderr)
	}
	for _, want := range []string{
		"listen: 127.0.0.1:0 # " + path + ":3:9\n",
		"data: " + filepath.Join(dir, "yamldata") + " # " + path + ":4:7\n",
		"  idle_timeout: 1m30s # -idle-timeout\n",
		"  max_connections: 1000 # " + path + ":6:20\n",
		"  format: json # " + path + ":9:11\n",
	} {
		if !strings.Contains(printed, want) {
			t.Errorf("-print-config has no line %q:\n%s", want, printed)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "yamldata")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("-print-config created the data directory: %v", err)
	}

	saved := filepath.Join(t.TempDir(), "printed.conf")
	if err := os.WriteFile(saved, []byte(printed), 0o644); err != nil {
		t.Fatal(err)
	}
	again, stderr, err := runBinary(t, "-config", saved, "-print-config")
	if err != nil {
		t.Fatalf("-print-config of the printed file: %v\n%s", err, stderr)
	}
	comments := regexp.MustCompile(` # .*`)
	if a, b := comments.ReplaceAllString(again, ""), comments.ReplaceAllString(printed, ""); a != b {
		t.Errorf("read back, the settings differ:\n%s\nthen\n%s", b, a)
	}

	n := testenv.NewNodeArgs(t, thriftdBin, "-config", saved)
	n.Start()
	if err := roundTrip(t, n.Addr); err != nil {
		t.Fatal(err)
	}
	serving := n.WaitLog(t, time.Second, map[string]string{"msg": "thriftd is serving"})
	if got, want := testenv.LogValue(serving["data"]), filepath.Join(dir, "yamldata"); got != want {
		t.Errorf("served from the printed file: data %s, want %s", got, want)
	}
}

// TestBadThriftdYAMLStopsStartUp: the error names the file, the line and
// the key, and thriftd exits with status 1 before opening anything, logging
// it in the format the flags ask for.
func TestBadThriftdYAMLStopsStartUp(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{yamlOnly + "admin:\n  tokn_file: t\n", `:11:3: unknown key \"admin.tokn_file\" (did you mean \"admin.token_file\"?)`},
		{strings.Replace(yamlOnly, "1000", "lots", 1), `:6:20: limits.max_connections: want an integer, not \"lots\"`},
	} {
		dir, path := configDir(t, tc.yaml)
		_, stderr, err := runBinary(t, "-config", path, "-log-format", "json")
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("exit: %v, want status 1", err)
		}
		if want := `"msg":"thriftd stopped","err":"` + path + tc.want + `"}`; !strings.Contains(stderr, want) {
			t.Errorf("stderr %s\nwant   %s", stderr, want)
		}
		if _, err := os.Stat(filepath.Join(dir, "yamldata")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the data directory was created: %v", err)
		}
	}
}

// TestStorageConfStillWorksAlone: -config storage-conf.xml serves as before,
// and -print-config shows what it read from it.
func TestStorageConfStillWorksAlone(t *testing.T) {
	xml := testenv.Fixture("storage-conf-0.6-test.xml")
	printed, stderr, err := runBinary(t, "-config", xml, "-print-config")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{
		"storage_conf: " + xml + " # -config\n",
		"listen: 127.0.0.1:9170 # " + xml + ": ListenAddress, ThriftPort\n",
		"sync: batch # " + xml + ": CommitLogSync\n",
	} {
		if !strings.Contains(printed, want) {
			t.Errorf("-print-config has no line %q:\n%s", want, printed)
		}
	}
	n := testenv.NewNode(t, thriftdBin, xml)
	n.Start()
	if err := roundTrip(t, n.Addr); err != nil {
		t.Fatal(err)
	}
}
