package ops

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/admin"
	"github.com/thriftd/thriftd/internal/testenv"
)

// runTool runs the thriftd-tool binary with exactly args, and with
// $THRIFTD_CONFIG set to config ("" for none).
func runTool(t *testing.T, config string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(toolBin, args...)
	cmd.Env = append(os.Environ(), "THRIFTD_CONFIG="+config)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"panic", "goroutine ", "DATA RACE"} {
		if strings.Contains(errOut.String(), bad) {
			t.Fatalf("thriftd-tool %q wrote %q:\n%s", args, bad, errOut.String())
		}
	}
	return out.String(), errOut.String(), code
}

// TestToolFindsTheNodeInItsConfigFile starts thriftd from a thriftd.yaml
// alone, whose admin endpoint listens on every interface on a port of its
// own and requires a token, and runs thriftd-tool with neither --admin nor
// --token-file: through --config (before and after the command), through
// $THRIFTD_CONFIG, and with flags that override the file.
func TestToolFindsTheNodeInItsConfigFile(t *testing.T) {
	thrift, adminPort := testenv.FreePort(t), testenv.FreePort(t)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "admin.token")
	if err := os.WriteFile(tokenFile, []byte("s3cret-config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "thriftd.yaml")
	yaml := fmt.Sprintf(`storage_conf: %s
listen: 127.0.0.1:%d
data: data
admin:
  listen: 0.0.0.0:%d
  token_file: admin.token
log:
  format: json
`, conf, thrift, adminPort)
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	n := testenv.NewNodeArgs(t, thriftdBin, "-config", path)
	n.Start()
	n.WaitLog(t, 5*time.Second, map[string]string{"msg": "admin endpoint is serving", "token": "true"})

	// The node as named by flags: what every other run must find again,
	// so that another thriftd on the default port cannot pass for it.
	adminAddr := "127.0.0.1:" + strconv.Itoa(adminPort)
	info := func(t *testing.T, config string, args ...string) (admin.Info, string, int) {
		t.Helper()
		out, errOut, code := runTool(t, config, args...)
		var v admin.Info
		if code == 0 {
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatalf("thriftd-tool %q: %v\n%s", args, err, out)
			}
		}
		return v, errOut, code
	}
	want, errOut, code := info(t, "", "--admin", adminAddr, "--token-file", tokenFile, "--json", "info")
	if code != 0 || want.GenerationNo == 0 {
		t.Fatalf("info with --admin and --token-file: exit %d, %+v\n%s", code, want, errOut)
	}
	answers := func(t *testing.T, config string, args ...string) {
		t.Helper()
		got, errOut, code := info(t, config, args...)
		if code != 0 || got.GenerationNo != want.GenerationNo || got.Token != want.Token {
			t.Errorf("thriftd-tool %q with THRIFTD_CONFIG=%q: exit %d, %+v; want %+v\n%s", args, config, code, got, want, errOut)
		}
	}
	fails := func(t *testing.T, config, msg string, args ...string) {
		t.Helper()
		_, errOut, code := runTool(t, config, args...)
		if code != 1 || !strings.Contains(errOut, msg) {
			t.Errorf("thriftd-tool %q with THRIFTD_CONFIG=%q: exit %d, %q; want 1 and %q", args, config, code, errOut, msg)
		}
	}
	wrong := strconv.Itoa(testenv.FreePort(t))
	empty := filepath.Join(t.TempDir(), "empty.token")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}

	t.Run("--config", func(t *testing.T) {
		answers(t, "", "--config", path, "--json", "info")
		answers(t, "", "--json", "info", "--config", path)
		if out, errOut, code := runTool(t, "", "--config", path, "info"); code != 0 || !strings.Contains(out, "Generation No    : "+strconv.FormatInt(want.GenerationNo, 10)) {
			t.Errorf("thriftd-tool --config info: exit %d\n%s%s", code, out, errOut)
		}
	})
	t.Run("THRIFTD_CONFIG", func(t *testing.T) {
		answers(t, path, "--json", "info")
	})
	t.Run("flags win over the file", func(t *testing.T) {
		fails(t, "", "cannot reach thriftd's admin endpoint at 127.0.0.1:"+wrong, "--config", path, "-p", wrong, "info")
		fails(t, path, "cannot reach thriftd's admin endpoint at 127.0.0.1:"+wrong, "--admin", "127.0.0.1:"+wrong, "info")
		fails(t, path, "bearer token", "--token-file", empty, "info")
		answers(t, path, "-h", "127.0.0.1", "--json", "info")
	})
	t.Run("--config '' turns THRIFTD_CONFIG off", func(t *testing.T) {
		fails(t, path, "bearer token", "--config", "", "--admin", adminAddr, "info")
	})
	t.Run("export names its server and reads no configuration file", func(t *testing.T) {
		broken := filepath.Join(t.TempDir(), "thriftd.yaml")
		if err := os.WriteFile(broken, []byte("listen: [\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := runTool(t, broken, "export", "--server", "127.0.0.1:"+strconv.Itoa(thrift), "--keyspace", ks,
			"--cf", "Standard1", "--out", t.TempDir(), "--progress", "off")
		if code != 0 {
			t.Errorf("export with a broken THRIFTD_CONFIG: exit %d\n%s%s", code, out, errOut)
		}
	})
}

// TestToolConfigFileErrors: a file thriftd would refuse, or one with no
// admin endpoint, stops thriftd-tool with a message naming the file, line
// and key.
func TestToolConfigFileErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("storage_conf: %s\n%s", conf, text)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	invalid := write("invalid.yaml", "admin:\n  listen: 127.0.0.1:9161\n  tokenfile: admin.token\n")
	off := write("off.yaml", "admin:\n  listen: 'off'\n")
	missing := filepath.Join(dir, "none.yaml")
	for _, c := range []struct {
		name, env string
		args      []string
		want      string
	}{
		{"invalid", "", []string{"--config", invalid, "info"}, "thriftd-tool: --config: " + invalid + `:4:3: unknown key "admin.tokenfile"`},
		{"invalid through THRIFTD_CONFIG", invalid, []string{"info"}, "thriftd-tool: $THRIFTD_CONFIG: " + invalid + ":4:3: "},
		{"unreadable", "", []string{"--config", missing, "ring"}, "thriftd-tool: --config: " + missing + ": cannot read the configuration file"},
		{"admin endpoint off", "", []string{"--config", off, "tpstats"}, "thriftd-tool: " + off + ":3:11: admin.listen is off"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runTool(t, c.env, c.args...)
			if code != 1 || out != "" || !strings.HasPrefix(errOut, c.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 1 and %q", code, out, errOut, c.want)
			}
		})
	}
}
