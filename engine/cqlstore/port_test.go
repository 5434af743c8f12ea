package cqlstore

import "testing"

// The driver reaches the nodes it finds through system.peers on the port
// the contact points share.
func TestSharedPort(t *testing.T) {
	for _, c := range []struct {
		hosts []string
		port  int
		ok    bool
	}{
		{[]string{"127.0.0.1:19190", "127.0.0.2:19190", "127.0.0.3:19190"}, 19190, true},
		{[]string{"[::1]:9142"}, 9142, true},
		{[]string{"127.0.0.1:19190", "127.0.0.2:9042"}, 0, false},
		{[]string{"127.0.0.1"}, 0, false},
		{[]string{"127.0.0.1:19190", "node2"}, 0, false},
		{nil, 0, false},
	} {
		port, ok := sharedPort(c.hosts)
		if port != c.port || ok != c.ok {
			t.Errorf("sharedPort(%q) = %d, %v; want %d, %v", c.hosts, port, ok, c.port, c.ok)
		}
	}
}
