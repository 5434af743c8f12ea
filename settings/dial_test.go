package settings

import "testing"

func TestDialHost(t *testing.T) {
	for _, c := range []struct{ listen, want string }{
		{"", "127.0.0.1"},
		{"0.0.0.0", "127.0.0.1"},
		{"::ffff:0.0.0.0", "127.0.0.1"},
		{"::", "::1"},
		{"0:0:0:0:0:0:0:0", "::1"},
		{"localhost", "localhost"},
		{"127.0.0.1", "127.0.0.1"},
		{"10.1.2.3", "10.1.2.3"},
		{"::1", "::1"},
		{"fe80::1", "fe80::1"},
		{"db1.example.com", "db1.example.com"},
	} {
		if got := DialHost(c.listen); got != c.want {
			t.Errorf("DialHost(%q) = %q, want %q", c.listen, got, c.want)
		}
	}
}
