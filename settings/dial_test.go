package settings

import "testing"

func TestDialAddr(t *testing.T) {
	for _, c := range []struct{ listen, want string }{
		{"0.0.0.0:9161", "127.0.0.1:9161"},
		{":9161", "127.0.0.1:9161"},
		{"[::]:9161", "[::1]:9161"},
		{"[0:0:0:0:0:0:0:0]:9161", "[::1]:9161"},
		{"[::ffff:0.0.0.0]:9161", "127.0.0.1:9161"},
		{"127.0.0.1:9161", "127.0.0.1:9161"},
		{"[::1]:9161", "[::1]:9161"},
		{"[fe80::1]:9160", "[fe80::1]:9160"},
		{"10.0.0.5:19161", "10.0.0.5:19161"},
		{"localhost:0", "localhost:0"},
		{"admin.example.com:9161", "admin.example.com:9161"},
		{"not an address", "not an address"},
	} {
		if got := DialAddr(c.listen); got != c.want {
			t.Errorf("DialAddr(%q) = %q, want %q", c.listen, got, c.want)
		}
	}
}

func TestToolConfig(t *testing.T) {
	t.Setenv(ConfigEnv, "/etc/thriftd/thriftd.yaml")
	if path, from := ToolConfig("my.yaml", true); path != "my.yaml" || from != "--config" {
		t.Errorf("a given --config: %q from %q", path, from)
	}
	if path, from := ToolConfig("", true); path != "" || from != "--config" {
		t.Errorf("--config '': %q from %q, want none", path, from)
	}
	if path, from := ToolConfig("", false); path != "/etc/thriftd/thriftd.yaml" || from != "$THRIFTD_CONFIG" {
		t.Errorf("no --config: %q from %q", path, from)
	}
}
