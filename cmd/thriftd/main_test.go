package main

import (
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/thriftd/thriftd/engine/ldbstore"
	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/settings"
)

func fixture(t *testing.T, name string) string { return testenv.Fixture(name) }

// resolve parses a command line and resolves its settings, as main does.
func resolve(t *testing.T, args ...string) *settings.Effective {
	t.Helper()
	c, err := parseFlags(args)
	if err != nil {
		t.Fatal(err)
	}
	eff, err := settings.Resolve(c.config, c.settings)
	if err != nil {
		t.Fatal(err)
	}
	return eff
}

func TestSettingsComeFromTheFileUnlessFlagsSayOtherwise(t *testing.T) {
	conf := fixture(t, "storage-conf-0.6-test.xml")
	eff := resolve(t, "-config", conf)
	if eff.Data != "build/test/cassandra/data" || eff.Listen != "127.0.0.1:9170" {
		t.Errorf("from the file: data %q, listen %q", eff.Data, eff.Listen)
	}
	if eff.Storage.Server.MaxMessageSize != 16<<20 || eff.Storage.Server.PasswdFile != filepath.Join(filepath.Dir(conf), "passwd.properties") {
		t.Errorf("defaults: %+v", eff.Storage.Server)
	}

	eff = resolve(t, "-config", conf, "-data", "/tmp/x", "-listen", "0.0.0.0:1234",
		"-max-message-mb", "2", "-max-connections", "0", "-idle-timeout", "5m", "-request-timeout", "1s",
		"-passwd", "p", "-access", "a", "-passwd-mode", "MD5", "-sync", "batch")
	s := eff.Storage.Server
	if eff.Data != "/tmp/x" || eff.Listen != "0.0.0.0:1234" || s.MaxMessageSize != 2<<20 || s.MaxConnections != 0 ||
		s.IdleTimeout != 5*time.Minute || s.RequestTimeout != time.Second || s.PasswdFile != "p" || s.AccessFile != "a" || s.PasswdMode != "MD5" {
		t.Errorf("flags were not applied: data %q listen %q %+v", eff.Data, eff.Listen, s)
	}
	if eff.Storage.CommitLogSync != "batch" || storeOptions(eff, nil).Sync != ldbstore.Batch {
		t.Errorf("-sync batch: CommitLogSync %q, store options %+v", eff.Storage.CommitLogSync, storeOptions(eff, nil))
	}
}

func TestDefaultConfigurationListensOnLocalhost(t *testing.T) {
	for _, file := range []string{"storage-conf.xml", "thriftd.yaml"} {
		eff := resolve(t, "-config", filepath.Join("..", "..", file))
		if filepath.Base(eff.Data) != "data" || eff.Listen != "localhost:9160" {
			t.Errorf("%s: data %q, listen %q", file, eff.Data, eff.Listen)
		}
	}
}

func TestNodeAddressIsWhatClientsDial(t *testing.T) {
	for addr, want := range map[string]string{"0.0.0.0:9160": "127.0.0.1", "[::]:9160": "127.0.0.1", "192.0.2.7:9160": "192.0.2.7"} {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := nodeAddress(a); got != want {
			t.Errorf("nodeAddress(%s) = %s, want %s", addr, got, want)
		}
	}
}

func TestUnknownAuthenticatorIsRefused(t *testing.T) {
	cfg := resolve(t, "-config", fixture(t, "storage-conf-0.6-test.xml")).Storage
	cfg.Authenticator = "com.example.LdapAuthenticator"
	if _, err := authenticator(cfg); err == nil {
		t.Error("an unknown authenticator class was accepted")
	}
}
