package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"

	"golang.org/x/crypto/bcrypt"
)

// Blob is where Local keeps its document durably: the LevelDB store's
// metadata. Load returns nil and no error before the first Save.
type Blob interface {
	Load() ([]byte, error)
	Save(data []byte) error
}

// Local is thriftd's own copy of Cassandra's roles model, for the LevelDB
// store: the rows of system_auth.roles and system_auth.role_permissions
// as one JSON document in a Blob. A fresh one holds the superuser
// cassandra with password cassandra, as a fresh Cassandra cluster does.
// Its methods are named for the CQL statements they stand for. It is safe
// for concurrent use.
type Local struct {
	blob Blob
	mu   sync.Mutex
	doc  localDoc
	// cost is bcrypt's cost for new hashes: Cassandra's 10.
	cost int
}

type localDoc struct {
	Roles       map[string]*Role                     `json:"roles"`
	Permissions map[string]map[Resource][]Permission `json:"permissions"`
}

// DefaultSuperuser and DefaultPassword are the role a fresh Local holds,
// as a fresh Cassandra cluster's PasswordAuthenticator creates it.
const (
	DefaultSuperuser = "cassandra"
	DefaultPassword  = "cassandra"
)

// bcryptCost is Cassandra's gensalt log rounds; tests lower it.
var bcryptCost = 10

// OpenLocal reads the document in blob, creating the default superuser
// when there is none yet.
func OpenLocal(blob Blob) (*Local, error) {
	l := &Local{blob: blob, cost: bcryptCost}
	raw, err := blob.Load()
	if err != nil {
		return nil, err
	}
	if raw != nil {
		if err := json.Unmarshal(raw, &l.doc); err != nil {
			return nil, fmt.Errorf("auth: the stored roles: %w", err)
		}
	}
	if l.doc.Roles == nil {
		l.doc.Roles = map[string]*Role{}
		l.doc.Permissions = map[string]map[Resource][]Permission{}
		hash, err := bcrypt.GenerateFromPassword([]byte(DefaultPassword), l.cost)
		if err != nil {
			return nil, err
		}
		l.doc.Roles[DefaultSuperuser] = &Role{Name: DefaultSuperuser, CanLogin: true, Superuser: true, SaltedHash: string(hash)}
		if err := l.save(); err != nil {
			return nil, err
		}
	}
	if l.doc.Permissions == nil {
		l.doc.Permissions = map[string]map[Resource][]Permission{}
	}
	return l, nil
}

func (l *Local) save() error {
	raw, err := json.Marshal(l.doc)
	if err != nil {
		return err
	}
	return l.blob.Save(raw)
}

// Role is Source.Role.
func (l *Local) Role(_ context.Context, name string) (*Role, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.doc.Roles[name]
	if r == nil {
		return nil, nil
	}
	c := *r
	c.MemberOf = slices.Clone(r.MemberOf)
	return &c, nil
}

// Permissions is Source.Permissions.
func (l *Local) Permissions(_ context.Context, role string) (map[Resource][]Permission, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[Resource][]Permission{}
	for r, ps := range l.doc.Permissions[role] {
		out[r] = slices.Clone(ps)
	}
	return out, nil
}

// RoleOptions are CREATE ROLE's and ALTER ROLE's options; a nil field is
// left as it is (ALTER) or at its default (CREATE: no password, not a
// superuser, no login).
type RoleOptions struct {
	Password  *string
	Superuser *bool
	Login     *bool
}

// CreateRole is CREATE ROLE (and CREATE USER, with Login true).
func (l *Local) CreateRole(name string, o RoleOptions) error {
	if name == "" {
		return fmt.Errorf("a role needs a name")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.doc.Roles[name] != nil {
		return fmt.Errorf("%s already exists", name)
	}
	r := &Role{Name: name}
	if err := l.apply(r, o); err != nil {
		return err
	}
	l.doc.Roles[name] = r
	return l.saveOr(func() { delete(l.doc.Roles, name) })
}

// AlterRole is ALTER ROLE (and ALTER USER).
func (l *Local) AlterRole(name string, o RoleOptions) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.doc.Roles[name]
	if r == nil {
		return fmt.Errorf("%s doesn't exist", name)
	}
	old := *r
	if err := l.apply(r, o); err != nil {
		return err
	}
	return l.saveOr(func() { *r = old })
}

func (l *Local) apply(r *Role, o RoleOptions) error {
	if o.Password != nil {
		hash, err := bcrypt.GenerateFromPassword([]byte(*o.Password), l.cost)
		if err != nil {
			return err
		}
		r.SaltedHash = string(hash)
	}
	if o.Superuser != nil {
		r.Superuser = *o.Superuser
	}
	if o.Login != nil {
		r.CanLogin = *o.Login
	}
	return nil
}

// saveOr saves the document, undoing the change in memory when that
// fails.
func (l *Local) saveOr(undo func()) error {
	if err := l.save(); err != nil {
		undo()
		return err
	}
	return nil
}

// DropRole is DROP ROLE (and DROP USER): the role, its permissions, and
// its membership of other roles' members go.
func (l *Local) DropRole(name string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.doc.Roles[name] == nil {
		return fmt.Errorf("%s doesn't exist", name)
	}
	raw, _ := json.Marshal(l.doc)
	delete(l.doc.Roles, name)
	delete(l.doc.Permissions, name)
	for _, r := range l.doc.Roles {
		r.MemberOf = slices.DeleteFunc(r.MemberOf, func(m string) bool { return m == name })
	}
	return l.saveOr(func() { l.doc = localDoc{}; json.Unmarshal(raw, &l.doc) })
}

// GrantRole is GRANT role TO grantee: grantee gets role's permissions and
// superuser status.
func (l *Local) GrantRole(role, grantee string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.doc.Roles[role] == nil {
		return fmt.Errorf("%s doesn't exist", role)
	}
	g := l.doc.Roles[grantee]
	if g == nil {
		return fmt.Errorf("%s doesn't exist", grantee)
	}
	if l.memberOf(role, grantee) {
		return fmt.Errorf("%s is a member of %s", role, grantee)
	}
	if slices.Contains(g.MemberOf, role) {
		return fmt.Errorf("%s is a member of %s", grantee, role)
	}
	g.MemberOf = append(g.MemberOf, role)
	sort.Strings(g.MemberOf)
	return l.saveOr(func() { g.MemberOf = slices.DeleteFunc(g.MemberOf, func(m string) bool { return m == role }) })
}

// memberOf reports whether a is b or a member of b, directly or not.
func (l *Local) memberOf(a, b string) bool {
	if a == b {
		return true
	}
	r := l.doc.Roles[a]
	if r == nil {
		return false
	}
	for _, m := range r.MemberOf {
		if l.memberOf(m, b) {
			return true
		}
	}
	return false
}

// RevokeRole is REVOKE role FROM revokee.
func (l *Local) RevokeRole(role, revokee string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	g := l.doc.Roles[revokee]
	if g == nil || l.doc.Roles[role] == nil {
		return fmt.Errorf("%s or %s doesn't exist", role, revokee)
	}
	if !slices.Contains(g.MemberOf, role) {
		return fmt.Errorf("%s is not a member of %s", revokee, role)
	}
	old := slices.Clone(g.MemberOf)
	g.MemberOf = slices.DeleteFunc(g.MemberOf, func(m string) bool { return m == role })
	return l.saveOr(func() { g.MemberOf = old })
}

// Grant is GRANT permissions ON resource TO role.
func (l *Local) Grant(perms []Permission, r Resource, role string) error {
	return l.changePermissions(perms, r, role, true)
}

// Revoke is REVOKE permissions ON resource FROM role.
func (l *Local) Revoke(perms []Permission, r Resource, role string) error {
	return l.changePermissions(perms, r, role, false)
}

func (l *Local) changePermissions(perms []Permission, r Resource, role string, grant bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.doc.Roles[role] == nil {
		return fmt.Errorf("%s doesn't exist", role)
	}
	byRes := l.doc.Permissions[role]
	if byRes == nil {
		byRes = map[Resource][]Permission{}
		l.doc.Permissions[role] = byRes
	}
	old, had := byRes[r]
	old = slices.Clone(old)
	set := map[Permission]bool{}
	for _, p := range byRes[r] {
		set[p] = true
	}
	for _, p := range perms {
		set[p] = grant
	}
	var next []Permission
	for _, p := range DataPermissions {
		if set[p] {
			next = append(next, p)
		}
	}
	if len(next) == 0 {
		delete(byRes, r)
	} else {
		byRes[r] = next
	}
	return l.saveOr(func() {
		if had {
			byRes[r] = old
		} else {
			delete(byRes, r)
		}
	})
}

// Roles is LIST ROLES: every role, by name, without its hash.
func (l *Local) Roles() []Role {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Role, 0, len(l.doc.Roles))
	for _, r := range l.doc.Roles {
		c := *r
		c.SaltedHash = ""
		c.MemberOf = slices.Clone(r.MemberOf)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// GrantLine is one line of LIST PERMISSIONS.
type GrantLine struct {
	Role       string     `json:"role"`
	Resource   Resource   `json:"resource"`
	Permission Permission `json:"permission"`
}

// ListPermissions is LIST ALL PERMISSIONS [OF role]: the permissions
// granted to role itself, or to every role when role is "", by role,
// resource and permission.
func (l *Local) ListPermissions(role string) ([]GrantLine, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if role != "" && l.doc.Roles[role] == nil {
		return nil, fmt.Errorf("%s doesn't exist", role)
	}
	var out []GrantLine
	for name, byRes := range l.doc.Permissions {
		if role != "" && name != role {
			continue
		}
		for r, ps := range byRes {
			for _, p := range ps {
				out = append(out, GrantLine{Role: name, Resource: r, Permission: p})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Role != b.Role {
			return a.Role < b.Role
		}
		if a.Resource != b.Resource {
			return a.Resource < b.Resource
		}
		return slices.Index(DataPermissions, a.Permission) < slices.Index(DataPermissions, b.Permission)
	})
	return out, nil
}
