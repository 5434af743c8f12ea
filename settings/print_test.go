package settings

import (
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// absolute returns s with every file name made absolute, for comparing
// settings read from different directories.
func absolute(t *testing.T, s Settings) Settings {
	t.Helper()
	out := s
	out.Cassandra.Hosts = append([]string(nil), s.Cassandra.Hosts...)
	for _, f := range fields() {
		if v := f.value(&out); f.path && v.String() != "" {
			abs, err := filepath.Abs(v.String())
			if err != nil {
				t.Fatal(err)
			}
			v.SetString(abs)
		}
	}
	return out
}

// TestPrintedConfigurationReadsBack prints an effective configuration made
// of every layer, saves it elsewhere and loads it: the settings are the
// same, and each printed value says where it came from.
func TestPrintedConfigurationReadsBack(t *testing.T) {
	dir := t.TempDir()
	storageConf(t, filepath.Join(dir, "conf"), "<ThriftMaxConnections>100</ThriftMaxConnections>")
	path := write(t, dir, "conf/thriftd.yaml", `
listen: 127.0.0.1:9170
log:
  format: json
auth:
  passwd_file: secret/passwd
admin:
  listen: "off"
  pprof: 127.0.0.1:0
`)
	eff, err := Resolve(path, flags(t, "-data", "rel/data", "-idle-timeout", "90s", "-sync", "batch"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := eff.YAML()
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, want := range []string{
		"listen: 127.0.0.1:9170 # " + path + ":2:9\n",
		"data: " + filepath.Join(must(filepath.Abs("rel/data"))) + " # -data\n",
		"sync: batch # -sync\n",
		"  max_connections: 100 # " + filepath.Join(dir, "conf", "storage-conf.xml") + ": ThriftMaxConnections\n",
		"  idle_timeout: 1m30s # -idle-timeout\n",
		"  passwd_file: " + filepath.Join(dir, "conf", "secret", "passwd") + " # " + path + ":6:16\n",
		"  level: info # default\n",
		"  hosts: [] # default\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the printed configuration has no line %q:\n%s", want, text)
		}
	}
	// Every key is printed, once.
	for _, f := range fields() {
		name := f.key[strings.LastIndexByte(f.key, '.')+1:]
		if n := len(regexp.MustCompile(`(?m)^ *`+name+`: `).FindAllString(text, -1)); n < 1 {
			t.Errorf("%s is not printed", f.key)
		}
	}

	saved := write(t, t.TempDir(), "elsewhere/printed.conf", text)
	back, err := Load(saved)
	if err != nil {
		t.Fatalf("reading the printed configuration back: %v\n%s", err, text)
	}
	if got, want := absolute(t, back.Settings), absolute(t, eff.Settings); !reflect.DeepEqual(got, want) {
		t.Errorf("read back:\n%+v\nwant\n%+v\nprinted:\n%s", got, want, text)
	}
	if !back.FileIsYAML || back.Origin("limits.idle_timeout").Line == 0 {
		t.Errorf("the printed file was not read as a thriftd.yaml: %+v", back.Origin("limits.idle_timeout"))
	}
	again, err := back.YAML()
	if err != nil {
		t.Fatal(err)
	}
	strip := regexp.MustCompile(` # .*`)
	if a, b := strip.ReplaceAllString(string(again), ""), strip.ReplaceAllString(text, ""); a != b {
		t.Errorf("printed twice, the values differ:\n%s\nthen\n%s", b, a)
	}
}

// TestListsRoundTrip prints a list of hosts and reads it back.
func TestListsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	storageConf(t, dir, "")
	path := write(t, dir, "thriftd.yaml", "cassandra:\n  hosts:\n    - db1:9042\n    - '[::1]:9042'\n  username: thriftd\n")
	eff, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := eff.YAML()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Load(write(t, dir, "printed.yaml", string(out)))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if want := []string{"db1:9042", "[::1]:9042"}; !reflect.DeepEqual(back.Cassandra.Hosts, want) || back.Cassandra.Username != "thriftd" {
		t.Errorf("read back %+v, want hosts %v\n%s", back.Cassandra, want, out)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Passwords are left out of -print-config's output, with a comment.
func TestYAMLLeavesPasswordsOut(t *testing.T) {
	dir := t.TempDir()
	storageConf(t, dir, "")
	path := write(t, dir, "thriftd.yaml", "client_encryption_options:\n  keystore_password: s3cret-ks\n  truststore_password: s3cret-ts\n")
	e, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.YAML()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "s3cret") {
		t.Errorf("a password was printed:\n%s", out)
	}
	for _, want := range []string{"  keystore_password: ~ # " + path + ":2:22, not printed\n", "  truststore_password: ~ # " + path + ":3:24, not printed\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
