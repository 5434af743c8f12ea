package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/settings"
)

func TestDialAddr(t *testing.T) {
	for _, c := range []struct {
		listen string
		host   string
		port   int
	}{
		{"0.0.0.0:9260", "127.0.0.1", 9260},
		{":9260", "127.0.0.1", 9260},
		{"[::]:9260", "::1", 9260},
		{"[fe80::1]:9160", "fe80::1", 9160},
		{"db1:9160", "db1", 9160},
		{"127.0.0.1:0", "127.0.0.1", 0},
	} {
		host, port, err := dialAddr(c.listen)
		if err != nil || host != c.host || port != c.port {
			t.Errorf("dialAddr(%q) = %q, %d, %v; want %q, %d", c.listen, host, port, err, c.host, c.port)
		}
	}
}

// configFile writes a thriftd.yaml with this text beside a copy of the
// repository's storage-conf.xml (ThriftAddress localhost, ThriftPort 9160).
func configFile(t *testing.T, yaml string) string {
	t.Helper()
	dir := t.TempDir()
	xml, err := os.ReadFile(filepath.Join("..", "..", "storage-conf.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "storage-conf.xml"), xml, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "thriftd.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// optionsOf parses args and applies the configuration file, as run does.
func optionsOf(t *testing.T, args ...string) (options, error) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	o, err := parseOptions(args, io.Discard)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return o, applyConfig(&o)
}

func TestConfigFileAddress(t *testing.T) {
	t.Setenv(settings.ConfigEnv, "")
	wildcard := configFile(t, "listen: 0.0.0.0:9260\n")
	ipv6 := configFile(t, "listen: '[::]:9270'\n")
	xmlOnly := configFile(t, "")
	xmlOnly = filepath.Join(filepath.Dir(xmlOnly), "storage-conf.xml")
	for _, c := range []struct {
		name string
		args []string
		env  string
		host string
		port int
	}{
		{"no file: the built-in defaults", nil, "", "127.0.0.1", 9160},
		{"the file's listen, wildcard to loopback", []string{"--config", wildcard}, "", "127.0.0.1", 9260},
		{"IPv6 wildcard", []string{"-config=" + ipv6}, "", "::1", 9270},
		{"storage-conf.xml alone: ThriftAddress and ThriftPort", []string{"--config", xmlOnly}, "", "localhost", 9160},
		{"--port wins over the file", []string{"--config", wildcard, "--port", "9999"}, "", "127.0.0.1", 9999},
		{"--host wins over the file", []string{"--config", wildcard, "--host", "db1"}, "", "db1", 9260},
		{"both flags win", []string{"--host", "db1", "--port", "9999", "--config", wildcard}, "", "db1", 9999},
		{"$THRIFTD_CONFIG", nil, wildcard, "127.0.0.1", 9260},
		{"--config wins over $THRIFTD_CONFIG", []string{"--config", ipv6}, wildcard, "::1", 9270},
		{"--config '' turns $THRIFTD_CONFIG off", []string{"--config", ""}, wildcard, "127.0.0.1", 9160},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(settings.ConfigEnv, c.env)
			o, err := optionsOf(t, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			if o.cfg.Host != c.host || o.cfg.Port != c.port {
				t.Errorf("%q with $%s=%q: %s/%d, want %s/%d", c.args, settings.ConfigEnv, c.env, o.cfg.Host, o.cfg.Port, c.host, c.port)
			}
		})
	}
}

func TestConfigFileErrors(t *testing.T) {
	t.Setenv(settings.ConfigEnv, "")
	missing := filepath.Join(t.TempDir(), "nothing.yaml")
	invalid := configFile(t, "# thriftd.yaml\nlisten: 127.0.0.1:9260\nlsiten: x\n")
	anyPort := configFile(t, "listen: 127.0.0.1:0\n")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"unreadable", []string{"--config", missing}, []string{missing, "cannot read"}},
		{"unknown key: its line and name", []string{"--config", invalid}, []string{invalid + ":3:", "lsiten"}},
		{"port 0 without --port", []string{"--config", anyPort}, []string{anyPort + ":1:", "port 0", "--port"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := optionsOf(t, c.args...)
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
	o, err := optionsOf(t, "--config", anyPort, "--port", "9300")
	if err != nil || o.cfg.Host != "127.0.0.1" || o.cfg.Port != 9300 {
		t.Errorf("port 0 with --port 9300: %s/%d, %v", o.cfg.Host, o.cfg.Port, err)
	}
}

func TestConfigErrorExitsWithTheFileMessage(t *testing.T) {
	invalid := configFile(t, "listen: [\n")
	t.Setenv(settings.ConfigEnv, invalid)
	t.Setenv("HOME", t.TempDir())
	var stderr strings.Builder
	if code := run([]string{"-e", "show api version"}, nil, io.Discard, &stderr); code != exitError {
		t.Errorf("exit status %d, want %d", code, exitError)
	}
	if got := stderr.String(); !strings.HasPrefix(got, "thriftd-cli: $THRIFTD_CONFIG: "+invalid+":") {
		t.Errorf("stderr %q does not name $THRIFTD_CONFIG and the file", got)
	}
}
