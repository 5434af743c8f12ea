package main

import (
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/thriftd/thriftd/settings"
)

func TestDefaults(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv(settings.ConfigEnv, "")
	o, err := parseOptions(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.cfg.Host != "127.0.0.1" || o.cfg.Port != 9160 || o.cfg.Framed || o.cfg.Timeout != 30*time.Second || o.output != "human" {
		t.Errorf("defaults: %+v", o)
	}
	if want := filepath.Join(home, ".thriftd_cli_history"); o.history != want {
		t.Errorf("history file %q, want %q", o.history, want)
	}
}

func TestFlagsBothWays(t *testing.T) {
	o, err := parseOptions([]string{"--host=db1", "-port", "9170", "--framed", "--keyspace", "Keyspace1",
		"--username", "alice", "--password", "wonderland7", "--timeout", "5s", "--history", "", "--output", "json", "-e", "show keyspaces"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	c := o.cfg
	if c.Host != "db1" || c.Port != 9170 || !c.Framed || c.Keyspace != "Keyspace1" || c.Username != "alice" || c.Password != "wonderland7" ||
		c.Timeout != 5*time.Second || o.history != "" || o.output != "json" || o.exec != "show keyspaces" {
		t.Errorf("parsed %+v", o)
	}
}

func TestPasswordFromEnvironment(t *testing.T) {
	t.Setenv("THRIFTD_CLI_PASSWORD", "from-env")
	o, err := parseOptions([]string{"--keyspace", "K", "--username", "u"}, io.Discard)
	if err != nil || o.cfg.Password != "from-env" {
		t.Fatalf("password %q, %v; want the environment's", o.cfg.Password, err)
	}
	o, err = parseOptions([]string{"--keyspace", "K", "--username", "u", "--password", "flag"}, io.Discard)
	if err != nil || o.cfg.Password != "flag" {
		t.Fatalf("password %q, %v; want the flag's", o.cfg.Password, err)
	}
}
