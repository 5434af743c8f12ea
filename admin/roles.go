package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/thriftd/thriftd/auth"
)

// RoleChange is the body of POST /v1/roles: one statement of CQL's role
// management, named as CQL names it. The password travels in the body,
// never in the query string, which the endpoint logs.
type RoleChange struct {
	// Statement is create_role, alter_role, drop_role, grant, revoke,
	// grant_role or revoke_role (create_user, alter_user and drop_user are
	// create_role with login, alter_role and drop_role).
	Statement string  `json:"statement"`
	Role      string  `json:"role"`
	Password  *string `json:"password,omitempty"`
	Superuser *bool   `json:"superuser,omitempty"`
	Login     *bool   `json:"login,omitempty"`
	// Permissions and Resource are grant's and revoke's: names as CQL
	// writes them (SELECT, ALL; ALL KEYSPACES, KEYSPACE ks, TABLE ks.t).
	Permissions []string `json:"permissions,omitempty"`
	Resource    string   `json:"resource,omitempty"`
	// Grantee is grant_role's and revoke_role's role that gains or loses
	// membership of Role.
	Grantee string `json:"grantee,omitempty"`
}

func (s *Server) roles() (*auth.Local, error) {
	if s.o.Roles == nil {
		return nil, &statusError{http.StatusNotImplemented, "this node keeps no roles of its own: it runs without PasswordAuthenticator, or on a Cassandra cluster, whose roles CQL manages"}
	}
	return s.o.Roles, nil
}

func (s *Server) listRoles(*http.Request) (any, error) {
	l, err := s.roles()
	if err != nil {
		return nil, err
	}
	return l.Roles(), nil
}

func (s *Server) listPermissions(r *http.Request) (any, error) {
	l, err := s.roles()
	if err != nil {
		return nil, err
	}
	out, err := l.ListPermissions(r.URL.Query().Get("role"))
	if err != nil {
		return nil, badRequest("%v", err)
	}
	if out == nil {
		out = []auth.GrantLine{}
	}
	return out, nil
}

func (s *Server) changeRoles(r *http.Request) (any, error) {
	l, err := s.roles()
	if err != nil {
		return nil, err
	}
	var c RoleChange
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<16)).Decode(&c); err != nil {
		return nil, badRequest("the body is not a role change: %v", err)
	}
	if err := applyRoleChange(l, c); err != nil {
		return nil, badRequest("%v", err)
	}
	if s.o.RolesChanged != nil {
		s.o.RolesChanged()
	}
	// The statement and role, never the password, reach the log.
	s.log.Info("roles changed", "statement", c.Statement, "role", c.Role, "peer", r.RemoteAddr)
	return Done{Command: c.Statement}, nil
}

func applyRoleChange(l *auth.Local, c RoleChange) error {
	o := auth.RoleOptions{Password: c.Password, Superuser: c.Superuser, Login: c.Login}
	switch c.Statement {
	case "create_user":
		o.Login = ptr(true)
		return l.CreateRole(c.Role, o)
	case "create_role":
		return l.CreateRole(c.Role, o)
	case "alter_role", "alter_user":
		return l.AlterRole(c.Role, o)
	case "drop_role", "drop_user":
		return l.DropRole(c.Role)
	case "grant", "revoke":
		var perms []auth.Permission
		for _, p := range c.Permissions {
			ps, err := auth.ParsePermission(p)
			if err != nil {
				return err
			}
			perms = append(perms, ps...)
		}
		if len(perms) == 0 {
			return fmt.Errorf("%s needs a permission", c.Statement)
		}
		res, err := auth.ParseResource(c.Resource)
		if err != nil {
			return err
		}
		if c.Statement == "grant" {
			return l.Grant(perms, res, c.Role)
		}
		return l.Revoke(perms, res, c.Role)
	case "grant_role":
		return l.GrantRole(c.Role, c.Grantee)
	case "revoke_role":
		return l.RevokeRole(c.Role, c.Grantee)
	}
	return fmt.Errorf("unknown statement %q", c.Statement)
}

func ptr[T any](v T) *T { return &v }

// Roles is LIST ROLES of the node's own roles (the LevelDB store's).
func (c *Client) Roles(ctx context.Context) ([]auth.Role, error) {
	var v []auth.Role
	return v, c.do(ctx, http.MethodGet, "/v1/roles", nil, &v)
}

// Permissions is LIST ALL PERMISSIONS [OF role].
func (c *Client) Permissions(ctx context.Context, role string) ([]auth.GrantLine, error) {
	var v []auth.GrantLine
	q := map[string][]string{}
	if role != "" {
		q["role"] = []string{role}
	}
	return v, c.do(ctx, http.MethodGet, "/v1/permissions", q, &v)
}

// ChangeRoles runs one role management statement.
func (c *Client) ChangeRoles(ctx context.Context, ch RoleChange) (Done, error) {
	var v Done
	return v, c.doBody(ctx, http.MethodPost, "/v1/roles", ch, &v)
}
