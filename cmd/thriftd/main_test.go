package main

import (
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/thriftd/thriftd/internal/testenv"
)

func fixture(t *testing.T, name string) string { return testenv.Fixture(name) }

func TestSettingsComeFromTheFileUnlessFlagsSayOtherwise(t *testing.T) {
	conf := fixture(t, "storage-conf-0.6-test.xml")
	f, err := parseFlags([]string{"-config", conf})
	if err != nil {
		t.Fatal(err)
	}
	cfg, data, listen, err := settings(f)
	if err != nil {
		t.Fatal(err)
	}
	if data != "build/test/cassandra/data" || listen != "127.0.0.1:9170" {
		t.Errorf("from the file: data %q, listen %q", data, listen)
	}
	if cfg.Server.MaxMessageSize != 16<<20 || cfg.Server.PasswdFile != filepath.Join(filepath.Dir(conf), "passwd.properties") {
		t.Errorf("defaults: %+v", cfg.Server)
	}

	f, err = parseFlags([]string{"-config", conf, "-data", "/tmp/x", "-listen", "0.0.0.0:1234",
		"-max-message-mb", "2", "-max-connections", "0", "-idle-timeout", "5m", "-request-timeout", "1s",
		"-passwd", "p", "-access", "a", "-passwd-mode", "MD5"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, data, listen, err = settings(f)
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Server
	if data != "/tmp/x" || listen != "0.0.0.0:1234" || s.MaxMessageSize != 2<<20 || s.MaxConnections != 0 ||
		s.IdleTimeout != 5*time.Minute || s.RequestTimeout != time.Second || s.PasswdFile != "p" || s.AccessFile != "a" || s.PasswdMode != "MD5" {
		t.Errorf("flags were not applied: data %q listen %q %+v", data, listen, s)
	}
}

func TestDefaultConfigurationListensOnLocalhost(t *testing.T) {
	f, err := parseFlags([]string{"-config", filepath.Join("..", "..", "storage-conf.xml")})
	if err != nil {
		t.Fatal(err)
	}
	_, data, listen, err := settings(f)
	if err != nil {
		t.Fatal(err)
	}
	if data != "var/data" || listen != "localhost:9160" {
		t.Errorf("default configuration: data %q, listen %q", data, listen)
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
	f, _ := parseFlags([]string{"-config", fixture(t, "storage-conf-0.6-test.xml")})
	cfg, _, _, err := settings(f)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Authenticator = "com.example.LdapAuthenticator"
	if _, err := authenticator(cfg); err == nil {
		t.Error("an unknown authenticator class was accepted")
	}
}
