package cqlstore

import (
	"context"
	"fmt"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/auth"
)

// Roles reads the cluster's own roles and permissions, the tables CQL's
// CREATE ROLE and GRANT write (Cassandra 2.2 and later):
// system_auth.roles and system_auth.role_permissions. It is an
// auth.Source; thriftd's user needs SELECT on system_auth (a superuser
// has it).
//
// A permission granted in CQL names the CQL keyspace, which is the
// Thrift keyspace's name after the store's prefix (or the adopted
// keyspace's own name): Permissions gives it back under the Thrift
// keyspace's name, which is what thriftd checks, and leaves out the
// grants on other CQL keyspaces.
type Roles struct {
	session *gocql.Session
	st      *Store
}

// Roles returns the store's reader of the cluster's roles.
func (st *Store) Roles() *Roles { return &Roles{session: st.session, st: st} }

// thriftResource is the Thrift keyspace's resource of a stored CQL one;
// ok is false for a keyspace thriftd does not serve from this prefix.
func (r *Roles) thriftResource(stored string) (auth.Resource, bool) {
	if stored == "data" {
		return auth.Root, true
	}
	rest, ok := strings.CutPrefix(stored, "data/")
	if !ok || rest == "" {
		return "", false
	}
	ks, table, _ := strings.Cut(rest, "/")
	for _, a := range r.st.Adopted() {
		if a.Name == ks {
			return auth.Resource(stored), true
		}
	}
	name, ok := strings.CutPrefix(ks, r.st.opts.Prefix)
	if !ok || name == "" {
		return "", false
	}
	if table == "" {
		return auth.KeyspaceResource(name), true
	}
	return auth.TableResource(name, table), true
}

// Role reads one row of system_auth.roles, at LOCAL_ONE as Cassandra
// reads roles other than its default superuser.
func (r *Roles) Role(ctx context.Context, name string) (*auth.Role, error) {
	var (
		role             auth.Role
		hash             *string
		canLogin, isSupe *bool
	)
	err := r.session.Query(`SELECT role, can_login, is_superuser, member_of, salted_hash FROM system_auth.roles WHERE role = ?`, name).
		Consistency(gocql.LocalOne).WithContext(ctx).
		Scan(&role.Name, &canLogin, &isSupe, &role.MemberOf, &hash)
	if err == gocql.ErrNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("system_auth.roles: %w", err)
	}
	if hash != nil {
		role.SaltedHash = *hash
	}
	role.CanLogin = canLogin != nil && *canLogin
	role.Superuser = isSupe != nil && *isSupe
	return &role, nil
}

// Permissions reads a role's rows of system_auth.role_permissions; the
// resources other than data ones (roles/, functions/) are left out.
func (r *Roles) Permissions(ctx context.Context, role string) (map[auth.Resource][]auth.Permission, error) {
	iter := r.session.Query(`SELECT resource, permissions FROM system_auth.role_permissions WHERE role = ?`, role).
		Consistency(gocql.LocalOne).WithContext(ctx).Iter()
	out := map[auth.Resource][]auth.Permission{}
	var (
		resource string
		perms    []string
	)
	for iter.Scan(&resource, &perms) {
		res, ok := r.thriftResource(resource)
		if !ok {
			perms = nil
			continue
		}
		for _, p := range perms {
			out[res] = append(out[res], auth.Permission(p))
		}
		perms = nil
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("system_auth.role_permissions: %w", err)
	}
	return out, nil
}
