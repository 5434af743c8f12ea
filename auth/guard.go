package auth

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Class names of the authenticators and authorizers thriftd knows, as
// Cassandra's configuration spells them.
const (
	AllowAllAuthenticator = "org.apache.cassandra.auth.AllowAllAuthenticator"
	SimpleAuthenticator   = "org.apache.cassandra.auth.SimpleAuthenticator"
	PasswordAuthenticator = "org.apache.cassandra.auth.PasswordAuthenticator"
	AllowAllAuthorizer    = "org.apache.cassandra.auth.AllowAllAuthorizer"
	CassandraAuthorizer   = "org.apache.cassandra.auth.CassandraAuthorizer"
)

// ClassName is the fully qualified name of a class named in a
// configuration: a short name (PasswordAuthenticator) gets Cassandra's
// org.apache.cassandra.auth. prefix, as Cassandra's configuration loader
// gives it; "" stays "".
func ClassName(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.Contains(s, ".") {
		return s
	}
	return "org.apache.cassandra.auth." + s
}

// Default cache lifetimes: Cassandra's roles_validity_in_ms,
// permissions_validity_in_ms and credentials_validity_in_ms.
const (
	DefaultRolesValidity       = 2 * time.Second
	DefaultPermissionsValidity = 2 * time.Second
	DefaultCredentialsValidity = 2 * time.Second
)

// Options configures a Guard.
type Options struct {
	// Source holds the roles and permissions; required when either
	// Passwords or Permissions is set.
	Source Source
	// Passwords is PasswordAuthenticator: logins are required and checked
	// against the roles' bcrypt hashes. False is AllowAllAuthenticator.
	Passwords bool
	// Permissions is CassandraAuthorizer: every call checks the logged-in
	// user's permissions. False is AllowAllAuthorizer.
	Permissions bool
	// RolesValidity, PermissionsValidity and CredentialsValidity are how
	// long a role, a user's permissions, and a verified password are
	// cached; 0 means the defaults, a negative value no caching.
	RolesValidity, PermissionsValidity, CredentialsValidity time.Duration
	// Limit bounds failed logins per user and host; the zero value sets
	// no bound.
	Limit Limit
	// Audit receives a line per login and per refused permission; nil
	// writes none.
	Audit *Audit
	// Logger is told of logins refused by Limit; nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Guard is the authenticator and authorizer of one thriftd process,
// shared by every connection of both APIs. It is safe for concurrent use.
type Guard struct {
	o       Options
	key     [32]byte // keys the credentials cache's password digests
	limiter *limiter

	mu    sync.Mutex
	roles map[string]roleEntry
	perms map[string]permEntry
	creds map[string]credEntry
}

type roleEntry struct {
	role    *Role
	expires time.Time
}

// permEntry is a user's effective permissions: its own and those of every
// role it is a member of, directly or not.
type permEntry struct {
	superuser bool
	perms     map[Resource]map[Permission]bool
	expires   time.Time
}

// credEntry is a password verified against hash: only its keyed digest
// is kept.
type credEntry struct {
	hash    string
	digest  [32]byte
	expires time.Time
}

// New returns a Guard.
func New(o Options) (*Guard, error) {
	if (o.Passwords || o.Permissions) && o.Source == nil {
		return nil, fmt.Errorf("auth: PasswordAuthenticator and CassandraAuthorizer need a source of roles")
	}
	if o.Permissions && !o.Passwords {
		// Cassandra refuses this too: without logins every user is
		// anonymous, and anonymous has no permissions.
		return nil, fmt.Errorf("CassandraAuthorizer needs PasswordAuthenticator (AllowAllAuthenticator logs nobody in)")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&o.RolesValidity, DefaultRolesValidity)
	def(&o.PermissionsValidity, DefaultPermissionsValidity)
	def(&o.CredentialsValidity, DefaultCredentialsValidity)
	g := &Guard{o: o, limiter: newLimiter(o.Limit), roles: map[string]roleEntry{}, perms: map[string]permEntry{}, creds: map[string]credEntry{}}
	if _, err := rand.Read(g.key[:]); err != nil {
		return nil, err
	}
	return g, nil
}

// RequiresLogin reports whether calls need a login first
// (PasswordAuthenticator).
func (g *Guard) RequiresLogin() bool { return g != nil && g.o.Passwords }

// ChecksPermissions reports whether calls check permissions
// (CassandraAuthorizer).
func (g *Guard) ChecksPermissions() bool { return g != nil && g.o.Permissions }

// Conn is one client connection's login state. Its zero value, with Peer
// set, is a connection that has not logged in. A connection makes its
// calls one at a time, so a Conn needs no lock.
type Conn struct {
	// Peer is the client's address, HOST:PORT; Host, the server's.
	Peer, Host string
	// User is the logged-in user; "" before a login.
	User string
}

// LoggedIn reports whether a login succeeded on the connection.
func (c *Conn) LoggedIn() bool { return c.User != "" }

// Messages of PasswordAuthenticator and ClientState.login, as Cassandra
// 2.1 words them (the last is 2.2's, which 2.1 had no role for).
const (
	msgMissingKey   = "Required key '%s' is missing"
	msgIncorrect    = "Username and/or password are incorrect"
	msgNotPermitted = "%s is not permitted to log in"
	msgTooMany      = "Too many failed login attempts; try again later"
)

// Login is PasswordAuthenticator.authenticate then ClientState.login:
// the credentials' "username" and "password" are checked, and on success
// the user is the connection's. call names the API's login call for the
// audit log. A refusal is an *AuthenticationError; any other error is the
// Source's failure.
func (g *Guard) Login(ctx context.Context, c *Conn, call string, creds map[string]string) error {
	user := creds["username"]
	if !g.RequiresLogin() {
		// AllowAllAuthenticator: anyone, as the anonymous user.
		c.User = "anonymous"
		return nil
	}
	now := g.o.Now()
	if err := g.limiter.allow(c, user, now); err != nil {
		g.o.Logger.Warn("login refused: too many failed logins", "user", user, "source", c.Peer, "call", call)
		g.o.Audit.login(c, call, user, false, err.Error())
		return err
	}
	err := g.authenticate(ctx, creds)
	var refused *AuthenticationError
	switch {
	case err == nil:
		c.User = user
		g.o.Audit.login(c, call, user, true, "")
	case asAuthn(err, &refused):
		g.limiter.failed(c, user, now)
		g.o.Audit.login(c, call, user, false, refused.Why)
	}
	return err
}

func asAuthn(err error, out **AuthenticationError) bool {
	e, ok := err.(*AuthenticationError)
	if ok {
		*out = e
	}
	return ok
}

func (g *Guard) authenticate(ctx context.Context, creds map[string]string) error {
	user, ok := creds["username"]
	if !ok {
		return &AuthenticationError{Why: fmt.Sprintf(msgMissingKey, "username")}
	}
	password, ok := creds["password"]
	if !ok {
		return &AuthenticationError{Why: fmt.Sprintf(msgMissingKey, "password")}
	}
	role, err := g.role(ctx, user)
	if err != nil {
		return err
	}
	if role == nil || role.SaltedHash == "" || !g.verify(user, password, role.SaltedHash) {
		return &AuthenticationError{Why: msgIncorrect}
	}
	if !role.CanLogin {
		return &AuthenticationError{Why: fmt.Sprintf(msgNotPermitted, user)}
	}
	return nil
}

// verify checks password against a bcrypt hash, through the credentials
// cache: bcrypt is slow on purpose, and a client logging in on every
// connection would otherwise pay for it each time. A changed hash (ALTER
// ROLE ... WITH PASSWORD) misses the cache.
func (g *Guard) verify(user, password, hash string) bool {
	mac := hmac.New(sha256.New, g.key[:])
	mac.Write([]byte(password))
	var digest [32]byte
	copy(digest[:], mac.Sum(nil))
	now := g.o.Now()
	g.mu.Lock()
	e, ok := g.creds[user]
	g.mu.Unlock()
	if ok && e.hash == hash && now.Before(e.expires) && hmac.Equal(e.digest[:], digest[:]) {
		return true
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		return false
	}
	if g.o.CredentialsValidity > 0 {
		g.mu.Lock()
		g.creds[user] = credEntry{hash: hash, digest: digest, expires: now.Add(g.o.CredentialsValidity)}
		g.mu.Unlock()
	}
	return true
}

// role reads a role through the roles cache.
func (g *Guard) role(ctx context.Context, name string) (*Role, error) {
	now := g.o.Now()
	g.mu.Lock()
	e, ok := g.roles[name]
	g.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.role, nil
	}
	r, err := g.o.Source.Role(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("reading role %s: %w", name, err)
	}
	if g.o.RolesValidity > 0 {
		g.mu.Lock()
		g.roles[name] = roleEntry{role: r, expires: now.Add(g.o.RolesValidity)}
		g.mu.Unlock()
	}
	return r, nil
}

// Messages of ClientState's checks, as Cassandra 2.1 words them.
const (
	msgNotLoggedIn = "You have not logged in"
	msgNoPerm      = "User %s has no %s permission on %s or any of its parents"
)

// CheckLogin is ClientState.validateLogin: with PasswordAuthenticator, a
// call needs a login first.
func (g *Guard) CheckLogin(c *Conn) error {
	if g.RequiresLogin() && !c.LoggedIn() {
		return &UnauthorizedError{Why: msgNotLoggedIn}
	}
	return nil
}

// Check is ClientState.ensureHasPermission after validateLogin: the
// connection's user must hold perm on r or one of its parents, itself or
// through a role it is a member of; a superuser holds every permission.
// call names the API call for the audit log. A refusal is an
// *UnauthorizedError; any other error is the Source's failure.
func (g *Guard) Check(ctx context.Context, c *Conn, call string, perm Permission, r Resource) error {
	if err := g.CheckLogin(c); err != nil {
		return err
	}
	if !g.ChecksPermissions() {
		return nil
	}
	e, err := g.effective(ctx, c.User)
	if err != nil {
		return err
	}
	if e.superuser {
		return nil
	}
	for _, p := range r.Chain() {
		if e.perms[p][perm] {
			return nil
		}
	}
	why := fmt.Sprintf(msgNoPerm, c.User, perm, r)
	g.o.Audit.refused(c, call, r, why)
	return &UnauthorizedError{Why: why}
}

// effective is a user's permissions through the permissions cache: those
// of the user's role and of every role it is a member of, transitively.
func (g *Guard) effective(ctx context.Context, user string) (permEntry, error) {
	now := g.o.Now()
	g.mu.Lock()
	e, ok := g.perms[user]
	g.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e, nil
	}
	e = permEntry{perms: map[Resource]map[Permission]bool{}, expires: now.Add(g.o.PermissionsValidity)}
	seen := map[string]bool{}
	queue := []string{user}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		r, err := g.role(ctx, name)
		if err != nil {
			return permEntry{}, err
		}
		if r == nil {
			continue // a dropped role granted earlier
		}
		if r.Superuser {
			e.superuser = true
		}
		perms, err := g.o.Source.Permissions(ctx, name)
		if err != nil {
			return permEntry{}, fmt.Errorf("reading the permissions of %s: %w", name, err)
		}
		for res, ps := range perms {
			if e.perms[res] == nil {
				e.perms[res] = map[Permission]bool{}
			}
			for _, p := range ps {
				e.perms[res][p] = true
			}
		}
		queue = append(queue, r.MemberOf...)
	}
	if g.o.PermissionsValidity > 0 {
		g.mu.Lock()
		g.perms[user] = e
		g.mu.Unlock()
	}
	return e, nil
}

// Forget empties the caches, so that a change made through thriftd's own
// tool is seen at once.
func (g *Guard) Forget() {
	if g == nil {
		return
	}
	g.mu.Lock()
	clear(g.roles)
	clear(g.perms)
	clear(g.creds)
	g.mu.Unlock()
}
