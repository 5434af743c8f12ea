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
type Roles struct{ session *gocql.Session }

// Roles returns the store's reader of the cluster's roles.
func (st *Store) Roles() *Roles { return &Roles{session: st.session} }

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
		if resource != "data" && !strings.HasPrefix(resource, "data/") {
			continue
		}
		for _, p := range perms {
			out[auth.Resource(resource)] = append(out[auth.Resource(resource)], auth.Permission(p))
		}
		perms = nil
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("system_auth.role_permissions: %w", err)
	}
	return out, nil
}
