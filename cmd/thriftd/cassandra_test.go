package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/settings"
)

// backendCheck parses a command line, resolves its settings and checks
// them against the backend, as main does.
func backendCheck(args ...string) (*command, *settings.Effective, error) {
	c, err := parseFlags(args)
	if err != nil {
		return nil, nil, err
	}
	eff, err := settings.Resolve(c.config, c.settings)
	if err != nil {
		return c, nil, err
	}
	return c, eff, checkBackend(c, eff)
}

func TestCassandraFlagsRefuseWhatCannotWork(t *testing.T) {
	conf := fixture(t, "storage-conf-0.6-test.xml")
	for _, tc := range []struct {
		args []string
		want string // "" when accepted
	}{
		{[]string{"-cassandra", "127.0.0.1:9042"}, ""},
		{[]string{"-cassandra", "127.0.0.1:9042", "-cassandra-prefix", "p_", "-cassandra-drop"}, ""},
		{[]string{"-cassandra", "127.0.0.1:9042", "-repair"}, "-repair recovers a LevelDB store; it cannot be combined with -cassandra"},
		{[]string{"-cassandra", "127.0.0.1:9042", "-data", "/tmp/x"}, "-data: data is the LevelDB store's directory; it cannot be combined with -cassandra"},
		{[]string{"-cassandra-prefix", "p_"}, "-cassandra-prefix: is set, but cassandra.hosts is empty"},
		{[]string{"-cassandra-dc", "dc1"}, "-cassandra-dc: is set, but cassandra.hosts is empty"},
		{[]string{"-cassandra-drop"}, "-cassandra-drop needs -cassandra"},
		{[]string{"-cassandra", "127.0.0.1:9042", "-cassandra-drop"}, "-cassandra-drop needs -cassandra-prefix (it drops only the keyspaces of one prefix)"},
		{[]string{"-cassandra", "127.0.0.1:9042", "-cassandra-tls-cert", "c.pem"}, "cassandra.tls_key: must be set too"},
	} {
		_, _, err := backendCheck(append([]string{"-config", conf}, tc.args...)...)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%v: got %v, want %q", tc.args, err, tc.want)
		}
	}
}

func TestCassandraClusterFromFlags(t *testing.T) {
	conf := fixture(t, "storage-conf-0.6-test.xml")
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("s3cret\r\nignored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	eff := resolve(t, "-config", conf, "-cassandra", "10.0.0.1:9042, 10.0.0.2:9042", "-cassandra-username", "app",
		"-cassandra-password-file", pw, "-cassandra-dc", "dc1", "-cassandra-timeout", "3s")
	c, err := cluster(eff.Cassandra)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Hosts, ",") != "10.0.0.1:9042,10.0.0.2:9042" || c.Username != "app" || c.Password != "s3cret" || c.LocalDC != "dc1" || c.Timeout != 3*time.Second {
		t.Errorf("cluster = %+v", c)
	}
	eff = resolve(t, "-config", conf, "-cassandra", "h:1", "-cassandra-username", "app")
	if _, err := cluster(eff.Cassandra); err == nil || err.Error() != "-cassandra-username needs -cassandra-password-file" {
		t.Errorf("username without password: %v", err)
	}
}

// thriftd refuses to start, naming the contact points, when no node answers.
func TestUnreachableClusterIsRefused(t *testing.T) {
	eff := resolve(t, "-config", fixture(t, "storage-conf-0.6-test.xml"), "-cassandra", "127.0.0.1:1", "-cassandra-timeout", "2s", "-listen", "127.0.0.1:0", "-admin", "off")
	err := run(eff, slog.New(slog.DiscardHandler), nil)
	if err == nil || !strings.Contains(err.Error(), "cannot reach the Cassandra cluster at 127.0.0.1:1") {
		t.Errorf("run = %v", err)
	}
}
