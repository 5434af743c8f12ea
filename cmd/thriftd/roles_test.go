package main

import (
	"testing"

	"github.com/thriftd/thriftd/auth"
)

// TestClusterRolesResource: a CQL grant's resource is given back under the
// Thrift keyspace's name, an adopted keyspace's under its own, and the
// grants on keyspaces thriftd does not serve are left out.
func TestClusterRolesResource(t *testing.T) {
	r := clusterRoles{keyspace: func(stored string) (string, bool, bool) {
		switch stored {
		case "t_Keyspace1":
			return "Keyspace1", false, true
		case "legacy":
			return "legacy", true, true
		}
		return "", false, false
	}}
	for _, c := range []struct {
		stored string
		want   auth.Resource
		ok     bool
	}{
		{"data", auth.Root, true},
		{"data/t_Keyspace1", auth.KeyspaceResource("Keyspace1"), true},
		{"data/t_Keyspace1/Standard1", auth.TableResource("Keyspace1", "Standard1"), true},
		{"data/legacy/cf", "data/legacy/cf", true},
		{"data/other", "", false},
		{"data/", "", false},
		{"roles/alice", "", false},
	} {
		got, ok := r.resource(c.stored)
		if got != c.want || ok != c.ok {
			t.Errorf("resource(%q) = %q, %v; want %q, %v", c.stored, got, ok, c.want, c.ok)
		}
	}
}
