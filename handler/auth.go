package handler

import (
	"context"
	"crypto/md5"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/config"
	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// Authenticator is 0.6's IAuthenticator: it decides login(), and whether
// data calls need one first.
type Authenticator interface {
	// RequiresLogin reports whether every data call (get ... batch_mutate)
	// must be preceded by a successful login on the same connection.
	// Meta calls (describe_*, get_string_*) never need one.
	RequiresLogin() bool
	// Login checks credentials for keyspace. It returns nil to let the
	// connection in, an *AuthenticationError for bad or missing
	// credentials, an *AuthorizationError when the user may not use the
	// keyspace, or any other error for a failure of the authenticator
	// itself. It must be safe for concurrent use.
	Login(keyspace string, credentials map[string]string) error
}

// AllowAll is org.apache.cassandra.auth.AllowAllAuthenticator, the
// default: login always succeeds and is never required.
type AllowAll struct{}

// RequiresLogin is false: 0.6 skipped checkLoginDone for AllowAll.
func (AllowAll) RequiresLogin() bool { return false }

// Login accepts anything.
func (AllowAll) Login(string, map[string]string) error { return nil }

// Password modes of SimpleAuthenticator.
const (
	PasswordModePlain = "PLAIN"
	PasswordModeMD5   = "MD5"
)

// simpleAuthenticator is org.apache.cassandra.auth.SimpleAuthenticator over
// the users and keyspace lists of a passwd and an access properties file.
type simpleAuthenticator struct {
	auth *config.Auth
	mode string
}

// NewSimpleAuthenticator returns 0.6's SimpleAuthenticator, checking passwords
// in mode PLAIN (the stored value is the password) or MD5 (the stored value
// is the hex MD5 of the password); "" means PLAIN. Another mode is refused
// with 0.6's message, which 0.6 gave at every login. a must not be modified
// afterwards.
func NewSimpleAuthenticator(a *config.Auth, mode string) (Authenticator, error) {
	switch mode {
	case "":
		mode = PasswordModePlain
	case PasswordModePlain, PasswordModeMD5:
	default:
		return nil, fmt.Errorf("The requested password check mode '%s' is not a valid mode.  Possible values are 'PLAIN', 'MD5', or leave it unspecified.", mode)
	}
	if a == nil {
		return nil, errors.New("handler: SimpleAuthenticator needs the passwd and access properties")
	}
	return &simpleAuthenticator{auth: a, mode: mode}, nil
}

// RequiresLogin is true: every data call needs a login first.
func (a *simpleAuthenticator) RequiresLogin() bool { return true }

// Login authenticates the "username" and "password" credentials, then
// authorizes the user for keyspace. An unknown user fails like a wrong
// password, and a keyspace missing from the access list like a user missing
// from it; 0.6 crashed on both (spec 16.7).
func (a *simpleAuthenticator) Login(keyspace string, credentials map[string]string) error {
	user, ok := credentials["username"]
	if !ok {
		return &AuthenticationError{Why: "Authentication request was missing the required key 'username'"}
	}
	password, ok := credentials["password"]
	if !ok {
		return &AuthenticationError{Why: "Authentication request was missing the required key 'password'"}
	}
	stored, known := a.auth.Passwords[user]
	if !known || !a.passwordMatches(password, stored) {
		return &AuthenticationError{Why: fmt.Sprintf("Given password in password mode %s could not be validated for user %s", a.mode, user)}
	}
	if !slices.Contains(a.auth.Access[keyspace], user) {
		return &AuthorizationError{Why: fmt.Sprintf("User %s could not be authorized to use keyspace %s", user, keyspace)}
	}
	return nil
}

// passwordMatches compares in constant time, so response times do not
// reveal how much of a password was right.
func (a *simpleAuthenticator) passwordMatches(given, stored string) bool {
	if a.mode == PasswordModeMD5 {
		want, err := hex.DecodeString(stored)
		if err != nil {
			return false
		}
		sum := md5.Sum([]byte(given))
		return subtle.ConstantTimeCompare(sum[:], want) == 1
	}
	return subtle.ConstantTimeCompare([]byte(given), []byte(stored)) == 1
}

// permit checks, under a Guard, that the logged-in user holds perm on each
// column family of keyspace the call names. 0.6 had no permissions: the
// check runs after the login (a connection that has not logged in gets
// 0.6's own refusal from the call's checks) and before the call's other
// validation, and only for families that exist, whose absence the call's
// validation reports in 0.6's words.
func (c *conn) permit(ctx context.Context, call string, perm auth.Permission, keyspace string, families []string) error {
	g := c.s.guard
	if g == nil || !c.loggedIn.Load() {
		return nil
	}
	keyspace = javaString(keyspace)
	sch := c.s.sch()
	for _, cf := range families {
		cf = javaString(cf)
		if sch.ColumnFamily(keyspace, cf) == nil {
			continue
		}
		if err := g.Check(ctx, &c.a, call, perm, auth.TableResource(keyspace, cf)); err != nil {
			return err
		}
	}
	return nil
}

func pathFamily(p *cassandra.ColumnPath) []string {
	if p == nil {
		return nil
	}
	return []string{p.ColumnFamily}
}

func parentFamily(p *cassandra.ColumnParent) []string {
	if p == nil {
		return nil
	}
	return []string{p.ColumnFamily}
}

// mapFamilies is batch_insert's families, in name order.
func mapFamilies(m map[string][]*cassandra.ColumnOrSuperColumn) []string {
	return slices.Sorted(maps.Keys(m))
}

// mutationFamilies is batch_mutate's families, in name order.
func mutationFamilies(m map[string]map[string][]*cassandra.Mutation) []string {
	seen := map[string]bool{}
	for _, byFamily := range m {
		for cf := range byFamily {
			seen[cf] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}
