package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/settings"
)

// configDir writes a thriftd.yaml with this text beside a copy of the
// repository's storage-conf.xml, and a token file "token" holding
// "s3cret", and returns the thriftd.yaml's path.
func configDir(t *testing.T, yaml string) string {
	t.Helper()
	dir := t.TempDir()
	xml, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "storage-conf.xml"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"storage-conf.xml": string(xml), "thriftd.yaml": yaml, "token": "s3cret\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "thriftd.yaml")
}

// connectArgs parses a command line as thriftd-tool does and returns the
// admin client the command would use.
func connectArgs(t *testing.T, args ...string) (addr, token string, err error) {
	t.Helper()
	o := &options{}
	root := newRootCmd(o)
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	cmd, rest, err := root.Find(args)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	if err := o.connect(cmd); err != nil {
		return "", "", err
	}
	return o.client.Addr, o.client.Token, nil
}

func TestAdminFromConfigFile(t *testing.T) {
	file := configDir(t, "admin:\n  listen: 0.0.0.0:19161\n  token_file: token\n")
	ipv6 := configDir(t, "admin:\n  listen: '[::]:19162'\n")
	alias := configDir(t, "admin:\n  listen: 127.0.0.1:19163\n  pprof: 127.0.0.1:19164\n")
	xmlOnly := filepath.Join(filepath.Dir(ipv6), "storage-conf.xml")
	other := filepath.Join(t.TempDir(), "other-token")
	if err := os.WriteFile(other, []byte("other\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name        string
		args        []string
		env         string
		addr, token string
	}{
		{"no file: the built-in default", []string{"info"}, "", "127.0.0.1:9161", ""},
		{"the file's admin.listen and token", []string{"--config", file, "info"}, "", "127.0.0.1:19161", "s3cret"},
		{"--config after the command", []string{"ring", "--config=" + file}, "", "127.0.0.1:19161", "s3cret"},
		{"IPv6 wildcard", []string{"--config", ipv6, "info"}, "", "[::1]:19162", ""},
		{"the deprecated admin.pprof wins, as in thriftd", []string{"--config", alias, "info"}, "", "127.0.0.1:19164", ""},
		{"storage-conf.xml alone: the defaults", []string{"--config", xmlOnly, "info"}, "", "127.0.0.1:9161", ""},
		{"--admin wins over the file", []string{"--config", file, "--admin", "db1:9999", "info"}, "", "db1:9999", "s3cret"},
		{"-p replaces the file's port", []string{"--config", file, "-p", "9999", "info"}, "", "127.0.0.1:9999", "s3cret"},
		{"-h replaces the file's host", []string{"info", "-h", "db1", "--config", file}, "", "db1:19161", "s3cret"},
		{"--token-file wins over the file", []string{"--config", file, "--token-file", other, "info"}, "", "127.0.0.1:19161", "other"},
		{"$THRIFTD_CONFIG", []string{"info"}, file, "127.0.0.1:19161", "s3cret"},
		{"--config wins over $THRIFTD_CONFIG", []string{"--config", ipv6, "info"}, file, "[::1]:19162", ""},
		{"--config '' turns $THRIFTD_CONFIG off", []string{"--config", "", "info"}, file, "127.0.0.1:9161", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(settings.ConfigEnv, c.env)
			addr, token, err := connectArgs(t, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			if addr != c.addr || token != c.token {
				t.Errorf("%q with $%s=%q: %s, token %q; want %s, token %q", c.args, settings.ConfigEnv, c.env, addr, token, c.addr, c.token)
			}
		})
	}
}

func TestAdminConfigFileErrors(t *testing.T) {
	t.Setenv(settings.ConfigEnv, "")
	missing := filepath.Join(t.TempDir(), "thriftd.yaml")
	invalid := configDir(t, "admin:\n  listen: 127.0.0.1:19161\n  tokenfile: token\n")
	off := configDir(t, "admin:\n  listen: off\n")
	anyPort := configDir(t, "admin:\n  listen: 127.0.0.1:0\n")
	noToken := configDir(t, "admin:\n  token_file: no-such-token\n")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"unreadable", []string{"--config", missing, "info"}, []string{"--config: " + missing, "cannot read"}},
		{"unknown key: its line and name", []string{"--config", invalid, "info"}, []string{invalid + ":3:", "tokenfile"}},
		{"admin endpoint off", []string{"--config", off, "info"}, []string{off + ":2:", "admin.listen is off", "--admin"}},
		{"port 0", []string{"--config", anyPort, "info"}, []string{anyPort + ":2:", "port 0"}},
		{"token file missing", []string{"--config", noToken, "info"}, []string{noToken + ":2:", "admin.token_file", "no-such-token"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := connectArgs(t, c.args...)
			if err == nil {
				t.Fatalf("%q: no error", c.args)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q: error %q does not say %q", c.args, err, w)
				}
			}
		})
	}
	// A flag makes the file's value moot.
	if addr, _, err := connectArgs(t, "--config", off, "--admin", "127.0.0.1:19161", "info"); err != nil || addr != "127.0.0.1:19161" {
		t.Errorf("admin off with --admin: %s, %v", addr, err)
	}
	if addr, _, err := connectArgs(t, "--config", anyPort, "-p", "19165", "info"); err != nil || addr != "127.0.0.1:19165" {
		t.Errorf("port 0 with -p: %s, %v", addr, err)
	}
}

func TestBrokenConfigFileExitsOne(t *testing.T) {
	invalid := configDir(t, "admin: [\n")
	t.Setenv(settings.ConfigEnv, invalid)
	var stderr strings.Builder
	if code := run(t.Context(), []string{"info"}, io.Discard, &stderr); code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if got := stderr.String(); !strings.HasPrefix(got, "thriftd-tool: $THRIFTD_CONFIG: "+invalid+":") {
		t.Errorf("stderr %q does not name $THRIFTD_CONFIG and the file", got)
	}
}
