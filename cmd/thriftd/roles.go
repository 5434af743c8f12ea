package main

import (
	"context"
	"fmt"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/auth"
)

// clusterRoles is the auth.Source of the Cassandra store: it reads the
// cluster's own roles and permissions, the tables CQL's CREATE ROLE and
// GRANT write (Cassandra 2.2 and later), system_auth.roles and
// system_auth.role_permissions. thriftd's user needs SELECT on
// system_auth (a superuser has it). The store knows nothing of the
// permission model: this adapter joins its session and its keyspace names
// to package auth.
//
// A permission granted in CQL names the CQL keyspace, which is the Thrift
// keyspace's name after the store's prefix (or the adopted keyspace's own
// name): Permissions gives it back under the Thrift keyspace's name, which
// is what thriftd checks, and leaves out the grants on other CQL keyspaces.
type clusterRoles struct {
	session *gocql.Session
	// keyspace is cqlstore.Store.ThriftKeyspace.
	keyspace func(stored string) (name string, adopted, ok bool)
}

// resource is the Thrift keyspace's resource of a stored CQL one; ok is
// false for a keyspace thriftd does not serve.
func (r clusterRoles) resource(stored string) (auth.Resource, bool) {
	if stored == "data" {
		return auth.Root, true
	}
	rest, ok := strings.CutPrefix(stored, "data/")
	if !ok || rest == "" {
		return "", false
	}
	ks, table, _ := strings.Cut(rest, "/")
	name, adopted, ok := r.keyspace(ks)
	switch {
	case !ok:
		return "", false
	case adopted:
		return auth.Resource(stored), true
	case table == "":
		return auth.KeyspaceResource(name), true
	}
	return auth.TableResource(name, table), true
}

// Role reads one row of system_auth.roles, at LOCAL_ONE as Cassandra
// reads roles other than its default superuser.
func (r clusterRoles) Role(ctx context.Context, name string) (*auth.Role, error) {
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
func (r clusterRoles) Permissions(ctx context.Context, role string) (map[auth.Resource][]auth.Permission, error) {
	iter := r.session.Query(`SELECT resource, permissions FROM system_auth.role_permissions WHERE role = ?`, role).
		Consistency(gocql.LocalOne).WithContext(ctx).Iter()
	out := map[auth.Resource][]auth.Permission{}
	var (
		resource string
		perms    []string
	)
	for iter.Scan(&resource, &perms) {
		res, ok := r.resource(resource)
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
