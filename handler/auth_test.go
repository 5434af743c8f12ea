package handler

import (
	"testing"

	"github.com/thriftd/thriftd/config"
	"github.com/thriftd/thriftd/gen-go/cassandra"
)

func fixtureAuth(t *testing.T) *config.Auth {
	t.Helper()
	a, err := config.LoadAuth(fixture(t, "passwd.properties"), fixture(t, "access.properties"))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func creds(kv ...string) *cassandra.AuthenticationRequest {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return &cassandra.AuthenticationRequest{Credentials: m}
}

// loginOutcome renders a login result as the client sees it.
func loginOutcome(err error) string {
	switch e := err.(type) {
	case nil:
		return "ok"
	case *cassandra.AuthenticationException:
		return "authn: " + e.Why
	case *cassandra.AuthorizationException:
		return "authz: " + e.Why
	}
	return "other: " + err.Error()
}

func TestSimpleAuthenticatorModes(t *testing.T) {
	for _, mode := range []string{"plain", "SHA1", " MD5"} {
		_, err := NewSimpleAuthenticator(&config.Auth{}, mode)
		want := "The requested password check mode '" + mode + "' is not a valid mode.  Possible values are 'PLAIN', 'MD5', or leave it unspecified."
		if err == nil || err.Error() != want {
			t.Errorf("mode %q: %v, want %q", mode, err, want)
		}
	}
	for _, mode := range []string{"", "PLAIN", "MD5"} {
		if _, err := NewSimpleAuthenticator(&config.Auth{}, mode); err != nil {
			t.Errorf("mode %q: %v", mode, err)
		}
	}
}

func TestSimpleAuthenticatorLogin(t *testing.T) {
	a, err := NewSimpleAuthenticator(fixtureAuth(t), "PLAIN")
	must(t, err)
	e := newEnv(t, withAuth(a))
	tests := []struct {
		keyspace string
		req      *cassandra.AuthenticationRequest
		want     string
	}{
		{"Keyspace1", creds("username", "alice", "password", "wonderland7"), "ok"},
		{"Keyspace1", creds("username", "Grace Hopper", "password", "cobol1959"), "ok"},
		{"BloggyAppy", creds("username", "bob", "password", "builder42"), "ok"},
		{"Keyspace1", creds("password", "wonderland7"), "authn: Authentication request was missing the required key 'username'"},
		{"Keyspace1", creds("username", "alice"), "authn: Authentication request was missing the required key 'password'"},
		{"Keyspace1", creds(), "authn: Authentication request was missing the required key 'username'"},
		{"Keyspace1", nil, "authn: Authentication request was missing the required key 'username'"},
		{"Keyspace1", creds("username", "alice", "password", "wonderland"), "authn: Given password in password mode PLAIN could not be validated for user alice"},
		{"Keyspace1", creds("username", "alice", "password", ""), "authn: Given password in password mode PLAIN could not be validated for user alice"},
		{"Keyspace1", creds("username", "mallory", "password", "x"), "authn: Given password in password mode PLAIN could not be validated for user mallory"},
		{"Keyspace1", creds("username", "bob", "password", "builder42"), "authz: User bob could not be authorized to use keyspace Keyspace1"},
		{"Keyspace2", creds("username", "alice", "password", "wonderland7"), "authz: User alice could not be authorized to use keyspace Keyspace2"},
		{"Keyspace1", creds("username", "Grace", "password", "cobol1959"), "authn: Given password in password mode PLAIN could not be validated for user Grace"},
	}
	for _, tt := range tests {
		c := e.svc.Connection()
		if got := loginOutcome(c.Login(e.ctx, tt.keyspace, tt.req)); got != tt.want {
			t.Errorf("login(%s, %v) = %s\nwant %s", tt.keyspace, tt.req, got, tt.want)
		}
	}
}

func TestSimpleAuthenticatorMD5(t *testing.T) {
	// 5ebe2294ecd0e0f08eab7690d2a6ee69 is the well-known MD5 of "secret".
	for _, stored := range []string{"5ebe2294ecd0e0f08eab7690d2a6ee69", "5EBE2294ECD0E0F08EAB7690D2A6EE69"} {
		a, err := NewSimpleAuthenticator(&config.Auth{
			Passwords: map[string]string{"u": stored},
			Access:    map[string][]string{"ks": {"u"}},
		}, "MD5")
		must(t, err)
		if err := a.Login("ks", map[string]string{"username": "u", "password": "secret"}); err != nil {
			t.Errorf("stored %s: %v", stored, err)
		}
		err = a.Login("ks", map[string]string{"username": "u", "password": stored})
		if got := whyOfAuth(err); got != "Given password in password mode MD5 could not be validated for user u" {
			t.Errorf("hash as password: %s", got)
		}
	}
}

func whyOfAuth(err error) string {
	if e, ok := err.(*AuthenticationError); ok {
		return e.Why
	}
	return "<not an AuthenticationError>"
}

func TestLoginRequired(t *testing.T) {
	a, err := NewSimpleAuthenticator(fixtureAuth(t), "")
	must(t, err)
	e := newEnv(t, withAuth(a))
	const required = "Login is required before any other API calls"
	dataCalls := map[string]call{
		"get":              get(ks1, "k", path("Standard1", nil, b("c")), one),
		"get_slice":        getSlice(ks1, "k", parent("Standard1", nil), all(), one),
		"multiget":         multiget(ks1, []string{"k"}, path("Standard1", nil, b("c")), one),
		"multiget_slice":   multigetSlice(ks1, []string{"k"}, parent("Standard1", nil), all(), one),
		"get_count":        getCount(ks1, "k", parent("Standard1", nil), one),
		"get_range_slice":  rangeSlice(ks1, parent("Standard1", nil), all(), "", "", 10, one),
		"get_range_slices": rangeSlices(ks1, parent("Standard1", nil), all(), &cassandra.KeyRange{StartKey: strp(""), EndKey: strp(""), Count: 1}, one),
		"insert":           insert(ks1, "k", path("Standard1", nil, b("c")), one),
		"batch_insert":     batchInsert(ks1, "k", map[string][]*cassandra.ColumnOrSuperColumn{"Standard1": {cosc(col("c", "v", 0))}}, one),
		"remove":           remove(ks1, "k", path("Standard1", nil, nil), one),
		"batch_mutate":     mutate("Standard1", deletion(1, nil, nil)),
		// login comes before any validation
		"get, invalid":    get("Nope", "", path("", nil, nil), cassandra.ConsistencyLevel_ZERO),
		"insert, invalid": insert(ks1, "", path("S", nil, nil), one),
	}
	c := e.svc.Connection()
	for name, f := range dataCalls {
		if got := whyOf(f(e.ctx, c)); got != required {
			t.Errorf("%s before login: %q", name, got)
		}
	}
	// An unknown consistency level fails first, as 0.6's decoder did.
	if got := whyOf(get(ks1, "k", path("Standard1", nil, b("c")), 12)(e.ctx, c)); got != "Unknown consistency level 12" {
		t.Errorf("unknown level before login: %q", got)
	}
	// Meta calls need no login.
	if _, err := c.DescribeKeyspaces(e.ctx); err != nil {
		t.Errorf("describe_keyspaces: %v", err)
	}
	if _, err := c.DescribeRing(e.ctx, ks1); err != nil {
		t.Errorf("describe_ring: %v", err)
	}

	// A failed login leaves the connection logged out.
	if err := c.Login(e.ctx, ks1, creds("username", "alice", "password", "nope")); err == nil {
		t.Fatal("bad password accepted")
	}
	if got := whyOf(dataCalls["get_slice"](e.ctx, c)); got != required {
		t.Errorf("after a failed login: %q", got)
	}

	// A login to one keyspace opens every keyspace, on that connection only.
	must(t, c.Login(e.ctx, ks1, creds("username", "alice", "password", "wonderland7")))
	for name, f := range dataCalls {
		if err := f(e.ctx, c); err != nil && whyOf(err) == required {
			t.Errorf("%s after login: %v", name, err)
		}
	}
	if _, err := c.GetSlice(e.ctx, "Keyspace2", "k", parent("Standard1", nil), all(), one); err != nil {
		t.Errorf("other keyspace after login: %v", err)
	}
	other := e.svc.Connection()
	if got := whyOf(dataCalls["get_slice"](e.ctx, other)); got != required {
		t.Errorf("another connection: %q", got)
	}
}

func TestAllowAll(t *testing.T) {
	e := newEnv(t)
	if _, err := e.c.GetSlice(e.ctx, ks1, "k", parent("Standard1", nil), all(), one); err != nil {
		t.Errorf("data call without login: %v", err)
	}
	if err := e.c.Login(e.ctx, "AnyKeyspace", creds("username", "x")); err != nil {
		t.Errorf("login: %v", err)
	}
}
