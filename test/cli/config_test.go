package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/internal/testenv"
)

// TestConfigFileFindsTheServer starts thriftd from a thriftd.yaml alone,
// listening on every interface on a port of its own, and runs thriftd-cli
// with no --host or --port: through --config, through $THRIFTD_CONFIG, and
// with a flag that overrides the file.
func TestConfigFileFindsTheServer(t *testing.T) {
	t.Setenv("THRIFTD_CONFIG", "")
	port := testenv.FreePort(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "thriftd.yaml")
	yaml := fmt.Sprintf("storage_conf: %s\nlisten: 0.0.0.0:%d\ndata: data\nadmin:\n  listen: 'off'\nlog:\n  format: json\n", defaultConfig, port)
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	n := testenv.NewNodeArgs(t, thriftdBin, "-config", path)
	n.Start()

	// A value only this thriftd holds, so that an answer from another
	// server on the default port cannot pass for this one's.
	mark := fmt.Sprint("config-", time.Now().UnixNano())
	explicit := []string{"--host", "127.0.0.1", "--port", strconv.Itoa(port)}
	if r := runCLI(t, "", append(explicit, "-e", "set Keyspace1.Standard1['cfg']['c'] = '"+mark+"'")...); r.code != 0 {
		t.Fatalf("set through --host and --port: exit %d\n%s", r.code, r.stderr)
	}
	get := "get Keyspace1.Standard1['cfg']['c']"
	answers := func(t *testing.T, args ...string) {
		t.Helper()
		if r := runCLI(t, "", append(args, "-e", "show api version")...); r.code != 0 || r.stdout != "2.2.0\n" {
			t.Errorf("thriftd-cli %q -e 'show api version': exit %d, %q\n%s", args, r.code, r.stdout, r.stderr)
		}
		if r := runCLI(t, "", append(args, "-e", get)...); r.code != 0 || !strings.Contains(r.stdout, mark) {
			t.Errorf("thriftd-cli %q -e %q: exit %d, %q (want %s)\n%s", args, get, r.code, r.stdout, mark, r.stderr)
		}
	}
	refused := func(t *testing.T, args ...string) {
		t.Helper()
		r := runCLI(t, "", append(args, "-e", "show api version")...)
		if r.code != 1 || !strings.Contains(r.stderr, "cannot connect") {
			t.Errorf("thriftd-cli %q: exit %d, stderr %q; want 1 and cannot connect", args, r.code, r.stderr)
		}
	}
	wrong := strconv.Itoa(testenv.FreePort(t))

	t.Run("--config", func(t *testing.T) {
		answers(t, "--config", path)
		answers(t, "--config", path, "--host", "127.0.0.1") // the port from the file
	})
	t.Run("THRIFTD_CONFIG", func(t *testing.T) {
		t.Setenv("THRIFTD_CONFIG", path)
		answers(t)
	})
	t.Run("--port wins over the file", func(t *testing.T) {
		refused(t, "--config", path, "--port", wrong)
		t.Setenv("THRIFTD_CONFIG", path)
		refused(t, "--port", wrong)
	})
	t.Run("--config '' turns THRIFTD_CONFIG off", func(t *testing.T) {
		t.Setenv("THRIFTD_CONFIG", path)
		refused(t, "--config", "", "--port", wrong)
		answers(t, "--config", "", "--host", "127.0.0.1", "--port", strconv.Itoa(port))
	})
}

// TestConfigFileErrors: a configuration file thriftd would refuse stops
// thriftd-cli before it connects, with thriftd's message naming the line
// and the key.
func TestConfigFileErrors(t *testing.T) {
	t.Setenv("THRIFTD_CONFIG", "")
	dir := t.TempDir()
	bad := filepath.Join(dir, "thriftd.yaml")
	yaml := fmt.Sprintf("storage_conf: %s\nlisten: 127.0.0.1:9160\nlimits:\n  max_conections: 10\n", defaultConfig)
	if err := os.WriteFile(bad, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "none.yaml")
	for _, c := range []struct {
		name string
		env  string
		args []string
		want string
	}{
		{"invalid", "", []string{"--config", bad}, "thriftd-cli: --config: " + bad + `:4:3: unknown key "limits.max_conections"`},
		{"invalid through THRIFTD_CONFIG", bad, nil, "thriftd-cli: $THRIFTD_CONFIG: " + bad + ":4:3: "},
		{"unreadable", "", []string{"--config", missing}, "thriftd-cli: --config: " + missing + ": cannot read the configuration file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("THRIFTD_CONFIG", c.env)
			r := runCLI(t, "", append(c.args, "-e", "show api version")...)
			if r.code != 1 || r.stdout != "" || !strings.HasPrefix(r.stderr, c.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", r.code, r.stdout, r.stderr, c.want)
			}
		})
	}
}
