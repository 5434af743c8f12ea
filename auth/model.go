// Package auth is Cassandra's PasswordAuthenticator and CassandraAuthorizer
// for both Thrift APIs: roles with bcrypt password hashes, role
// inheritance, superusers, and permissions (SELECT, MODIFY, CREATE,
// ALTER, DROP, AUTHORIZE) granted on data resources, read from a Source
// (the Cassandra cluster's system_auth tables, or thriftd's own durable
// copy of the same model on the LevelDB store) through caches as short
// lived as Cassandra's. A Guard decides logins and permission checks,
// limits failed logins per connection and per source address, and writes
// an audit line per login and per refused permission.
//
// docs/security.md describes the settings and the permission every call
// needs.
package auth

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Permission is one of Cassandra's permissions on a data resource.
type Permission string

// The permissions of data resources, in Cassandra's order (Permission's
// enum order, which LIST PERMISSIONS follows).
const (
	Create    Permission = "CREATE"
	Alter     Permission = "ALTER"
	Drop      Permission = "DROP"
	Select    Permission = "SELECT"
	Modify    Permission = "MODIFY"
	Authorize Permission = "AUTHORIZE"
)

// DataPermissions is every permission a data resource can be granted, what
// GRANT ALL PERMISSIONS gives on one.
var DataPermissions = []Permission{Create, Alter, Drop, Select, Modify, Authorize}

// ParsePermission reads a permission name, in any case; "ALL" (or "ALL
// PERMISSIONS") is every data permission.
func ParsePermission(s string) ([]Permission, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	if u == "ALL" || u == "ALL PERMISSIONS" {
		return slices.Clone(DataPermissions), nil
	}
	for _, p := range DataPermissions {
		if string(p) == u {
			return []Permission{p}, nil
		}
	}
	return nil, fmt.Errorf("unknown permission %q (CREATE, ALTER, DROP, SELECT, MODIFY, AUTHORIZE or ALL)", s)
}

// Resource is a data resource in Cassandra's name form: "data" (every
// keyspace), "data/KS" or "data/KS/TABLE", as system_auth.role_permissions
// records it.
type Resource string

// Root is every keyspace.
const Root Resource = "data"

// KeyspaceResource is one keyspace.
func KeyspaceResource(ks string) Resource { return Resource("data/" + ks) }

// TableResource is one table (column family) of a keyspace.
func TableResource(ks, table string) Resource { return Resource("data/" + ks + "/" + table) }

// ParseResource reads a resource as CQL names it ("ALL KEYSPACES",
// "KEYSPACE ks", "TABLE ks.t", "ks.t") or as its stored name ("data",
// "data/ks", "data/ks/t").
func ParseResource(s string) (Resource, error) {
	t := strings.TrimSpace(s)
	u := strings.ToUpper(t)
	switch {
	case u == "ALL KEYSPACES" || t == "data":
		return Root, nil
	case strings.HasPrefix(t, "data/"):
		parts := strings.Split(t, "/")
		if len(parts) <= 3 && !slices.Contains(parts, "") {
			return Resource(t), nil
		}
	case strings.HasPrefix(u, "KEYSPACE "):
		if ks := strings.TrimSpace(t[len("KEYSPACE "):]); ks != "" && !strings.ContainsAny(ks, "./ ") {
			return KeyspaceResource(ks), nil
		}
	default:
		name := t
		if strings.HasPrefix(u, "TABLE ") || strings.HasPrefix(u, "COLUMNFAMILY ") {
			name = strings.TrimSpace(t[strings.IndexByte(t, ' ')+1:])
		}
		if ks, table, ok := strings.Cut(name, "."); ok && ks != "" && table != "" && !strings.ContainsAny(name, "/ ") && !strings.Contains(table, ".") {
			return TableResource(ks, table), nil
		}
	}
	return "", fmt.Errorf("unknown resource %q (ALL KEYSPACES, KEYSPACE ks, TABLE ks.table)", s)
}

// String is Cassandra's DataResource.toString, which its messages quote:
// "<all keyspaces>", "<keyspace ks>", "<table ks.t>".
func (r Resource) String() string {
	parts := strings.Split(string(r), "/")
	switch len(parts) {
	case 2:
		return "<keyspace " + parts[1] + ">"
	case 3:
		return "<table " + parts[1] + "." + parts[2] + ">"
	}
	return "<all keyspaces>"
}

// Keyspace is the resource's keyspace; "" for Root.
func (r Resource) Keyspace() string {
	parts := strings.Split(string(r), "/")
	if len(parts) < 2 {
		return ""
	}
	return parts[1]
}

// Table is the resource's table; "" for a keyspace or Root.
func (r Resource) Table() string {
	parts := strings.Split(string(r), "/")
	if len(parts) < 3 {
		return ""
	}
	return parts[2]
}

// Chain is the resource and its parents, itself first: Cassandra's
// Resources.chain, the order a permission check walks.
func (r Resource) Chain() []Resource {
	out := []Resource{r}
	for s := string(r); strings.Contains(s, "/"); {
		s = s[:strings.LastIndexByte(s, '/')]
		out = append(out, Resource(s))
	}
	return out
}

// Role is one row of system_auth.roles. A user is a role that can log in.
type Role struct {
	Name      string   `json:"role"`
	CanLogin  bool     `json:"can_login"`
	Superuser bool     `json:"is_superuser"`
	MemberOf  []string `json:"member_of,omitempty"`
	// SaltedHash is the bcrypt hash of the password; "" when the role has
	// none and so cannot log in with a password.
	SaltedHash string `json:"salted_hash,omitempty"`
}

// Source is where the roles and permissions are read: the Cassandra
// cluster's system_auth, or the LevelDB store's copy (Local). It must be
// safe for concurrent use.
type Source interface {
	// Role returns the named role, or nil and no error when there is none.
	Role(ctx context.Context, name string) (*Role, error)
	// Permissions returns the permissions granted to the role itself (not
	// through the roles it is a member of), by resource.
	Permissions(ctx context.Context, role string) (map[Resource][]Permission, error)
}

// AuthenticationError is a refused login; Why is the client's
// AuthenticationException.why.
type AuthenticationError struct{ Why string }

func (e *AuthenticationError) Error() string { return e.Why }

// UnauthorizedError is Cassandra's UnauthorizedException: a call the
// user may not make. Both Thrift APIs send it as InvalidRequestException
// with Why, as Cassandra 2.1 did.
type UnauthorizedError struct{ Why string }

func (e *UnauthorizedError) Error() string { return e.Why }
