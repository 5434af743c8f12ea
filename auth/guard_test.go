package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	bcryptCost = 4 // bcrypt under the race detector is slow
	os.Exit(m.Run())
}

type memBlob struct{ data []byte }

func (m *memBlob) Load() ([]byte, error) { return m.data, nil }
func (m *memBlob) Save(d []byte) error   { m.data = append([]byte(nil), d...); return nil }

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func ptr[T any](v T) *T { return &v }

// fixture: alice may read ks, bob may write ks.t through the role writers,
// root is a superuser through the role admins.
func fixture(t *testing.T) (*Local, *clock) {
	t.Helper()
	l, err := OpenLocal(&memBlob{})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	login := RoleOptions{Login: ptr(true), Password: ptr("pw")}
	must(l.CreateRole("alice", login))
	must(l.CreateRole("bob", login))
	must(l.CreateRole("root", login))
	must(l.CreateRole("writers", RoleOptions{}))
	must(l.CreateRole("admins", RoleOptions{Superuser: ptr(true)}))
	must(l.CreateRole("nologin", RoleOptions{Password: ptr("pw")}))
	must(l.Grant([]Permission{Select}, KeyspaceResource("ks"), "alice"))
	must(l.Grant([]Permission{Modify}, TableResource("ks", "t"), "writers"))
	must(l.GrantRole("writers", "bob"))
	must(l.GrantRole("admins", "root"))
	return l, &clock{t: time.Unix(1_800_000_000, 0)}
}

func TestLoginMessages(t *testing.T) {
	l, clk := fixture(t)
	g, err := New(Options{Source: l, Passwords: true, Permissions: true, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		creds map[string]string
		want  string
	}{
		{map[string]string{"username": "alice", "password": "pw"}, ""},
		{map[string]string{"username": "cassandra", "password": "cassandra"}, ""},
		{map[string]string{"username": "alice", "password": "no"}, "Username and/or password are incorrect"},
		{map[string]string{"username": "nobody", "password": "pw"}, "Username and/or password are incorrect"},
		{map[string]string{"username": "writers", "password": ""}, "Username and/or password are incorrect"},
		{map[string]string{"password": "pw"}, "Required key 'username' is missing"},
		{map[string]string{"username": "alice"}, "Required key 'password' is missing"},
		{map[string]string{"username": "nologin", "password": "pw"}, "nologin is not permitted to log in"},
	} {
		c := &Conn{Peer: "10.0.0.1:5000"}
		err := g.Login(context.Background(), c, "login", tc.creds)
		got := ""
		if err != nil {
			var ae *AuthenticationError
			if !errors.As(err, &ae) {
				t.Fatalf("%v: %T %v, want an AuthenticationError", tc.creds, err, err)
			}
			got = ae.Why
		}
		if got != tc.want {
			t.Errorf("login %v: %q, want %q", tc.creds, got, tc.want)
		}
		if (got == "") != c.LoggedIn() {
			t.Errorf("login %v: logged in %v", tc.creds, c.LoggedIn())
		}
	}
}

func TestCheck(t *testing.T) {
	l, clk := fixture(t)
	g, _ := New(Options{Source: l, Passwords: true, Permissions: true, Now: clk.now})
	conn := func(user string) *Conn {
		c := &Conn{Peer: "10.0.0.1:5000"}
		if user != "" {
			if err := g.Login(context.Background(), c, "login", map[string]string{"username": user, "password": "pw"}); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	alice, bob, root, anon := conn("alice"), conn("bob"), conn("root"), conn("")
	for _, tc := range []struct {
		c    *Conn
		perm Permission
		r    Resource
		want string
	}{
		{alice, Select, TableResource("ks", "t"), ""},
		{alice, Select, KeyspaceResource("ks"), ""},
		{alice, Modify, TableResource("ks", "t"), "User alice has no MODIFY permission on <table ks.t> or any of its parents"},
		{alice, Select, TableResource("other", "t"), "User alice has no SELECT permission on <table other.t> or any of its parents"},
		{bob, Modify, TableResource("ks", "t"), ""},
		{bob, Modify, TableResource("ks", "u"), "User bob has no MODIFY permission on <table ks.u> or any of its parents"},
		{bob, Create, Root, "User bob has no CREATE permission on <all keyspaces> or any of its parents"},
		{bob, Drop, KeyspaceResource("ks"), "User bob has no DROP permission on <keyspace ks> or any of its parents"},
		{root, Drop, Root, ""},
		{anon, Select, TableResource("ks", "t"), "You have not logged in"},
	} {
		err := g.Check(context.Background(), tc.c, "get", tc.perm, tc.r)
		got := ""
		if err != nil {
			var ue *UnauthorizedError
			if !errors.As(err, &ue) {
				t.Fatalf("%T %v", err, err)
			}
			got = ue.Why
		}
		if got != tc.want {
			t.Errorf("%s %s on %s: %q, want %q", tc.c.User, tc.perm, tc.r, got, tc.want)
		}
	}
}

func TestCachesExpire(t *testing.T) {
	l, clk := fixture(t)
	g, _ := New(Options{Source: l, Passwords: true, Permissions: true, Now: clk.now})
	c := &Conn{Peer: "h:1"}
	ctx := context.Background()
	if err := g.Login(ctx, c, "login", map[string]string{"username": "alice", "password": "pw"}); err != nil {
		t.Fatal(err)
	}
	r := TableResource("ks", "t")
	if err := g.Check(ctx, c, "insert", Modify, r); err == nil {
		t.Fatal("alice may modify before the grant")
	}
	if err := l.Grant([]Permission{Modify}, KeyspaceResource("ks"), "alice"); err != nil {
		t.Fatal(err)
	}
	if err := g.Check(ctx, c, "insert", Modify, r); err == nil {
		t.Fatal("the grant was seen within the permissions validity")
	}
	clk.t = clk.t.Add(DefaultPermissionsValidity + time.Millisecond)
	if err := g.Check(ctx, c, "insert", Modify, r); err != nil {
		t.Fatalf("the grant is not seen after the permissions validity: %v", err)
	}
	// A changed password is seen once the role leaves the cache, though
	// the old one was verified and cached.
	if err := l.AlterRole("alice", RoleOptions{Password: ptr("new")}); err != nil {
		t.Fatal(err)
	}
	clk.t = clk.t.Add(DefaultRolesValidity + time.Millisecond)
	if err := g.Login(ctx, &Conn{Peer: "h:2"}, "login", map[string]string{"username": "alice", "password": "pw"}); err == nil {
		t.Fatal("the old password still logs in after the roles validity")
	}
	if err := g.Login(ctx, &Conn{Peer: "h:2"}, "login", map[string]string{"username": "alice", "password": "new"}); err != nil {
		t.Fatal(err)
	}
}

func TestLimitAndAudit(t *testing.T) {
	l, clk := fixture(t)
	var buf bytes.Buffer
	g, _ := New(Options{Source: l, Passwords: true, Permissions: true, Now: clk.now,
		Limit: Limit{Max: 2, Window: time.Minute}, Audit: NewAudit(&buf, clk.now)})
	ctx := context.Background()
	bad := map[string]string{"username": "alice", "password": "secret-wrong"}
	good := map[string]string{"username": "alice", "password": "pw"}
	c1 := &Conn{Peer: "10.1.1.1:1000", Host: "127.0.0.1:9160"}
	for range 2 {
		if err := g.Login(ctx, c1, "login", bad); err == nil || err.Error() != msgIncorrect {
			t.Fatalf("bad password: %v", err)
		}
	}
	// Another user from the same host, on the failing connection and on
	// another one, is not refused: the bound is per user and host.
	bobGood := map[string]string{"username": "bob", "password": "pw"}
	if err := g.Login(ctx, c1, "login", bobGood); err != nil {
		t.Fatalf("bob on the connection alice failed on: %v", err)
	}
	if err := g.Login(ctx, &Conn{Peer: "10.1.1.1:1002"}, "login", bobGood); err != nil {
		t.Fatalf("bob from alice's address: %v", err)
	}
	// alice is refused from that host, on any connection, even with the
	// right password.
	if err := g.Login(ctx, c1, "login", good); err == nil || err.Error() != msgTooMany {
		t.Fatalf("third login of alice on the connection: %v", err)
	}
	if err := g.Login(ctx, &Conn{Peer: "10.1.1.1:1001"}, "login", good); err == nil || err.Error() != msgTooMany {
		t.Fatalf("alice from the same address: %v", err)
	}
	if err := g.Login(ctx, &Conn{Peer: "10.1.1.2:1000"}, "login", good); err != nil {
		t.Fatalf("another address: %v", err)
	}
	clk.t = clk.t.Add(time.Minute + time.Second)
	if err := g.Login(ctx, c1, "login", good); err != nil {
		t.Fatalf("after the window: %v", err)
	}
	if err := g.Check(ctx, c1, "insert", Modify, TableResource("ks", "t")); err == nil {
		t.Fatal("alice may modify")
	}
	out := buf.String()
	if strings.Contains(out, "secret-wrong") || strings.Contains(out, `"pw"`) {
		t.Fatalf("a password reached the audit log:\n%s", out)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e Entry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		types = append(types, e.Type)
		if (e.User != "alice" && e.User != "bob") || e.Category != "AUTH" {
			t.Errorf("entry %+v", e)
		}
	}
	want := "LOGIN_ERROR LOGIN_ERROR LOGIN_SUCCESS LOGIN_SUCCESS LOGIN_ERROR LOGIN_ERROR LOGIN_SUCCESS LOGIN_SUCCESS UNAUTHORIZED_ATTEMPT"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("audit types %s, want %s", got, want)
	}
	var last Entry
	lines := strings.Split(strings.TrimSpace(out), "\n")
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	if last.Keyspace != "ks" || last.Scope != "t" || last.Source != "10.1.1.1" || last.Port != 1000 || last.Host != "127.0.0.1:9160" {
		t.Errorf("refusal entry %+v", last)
	}
}

func TestResources(t *testing.T) {
	for in, want := range map[string]Resource{
		"ALL KEYSPACES": Root, "data": Root, "KEYSPACE ks": "data/ks", "ks.t": "data/ks/t",
		"TABLE ks.t": "data/ks/t", "data/ks/t": "data/ks/t",
	} {
		got, err := ParseResource(in)
		if err != nil || got != want {
			t.Errorf("ParseResource(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "ks", "data//x", "TABLE ks", "KEYSPACE a.b"} {
		if _, err := ParseResource(in); err == nil {
			t.Errorf("ParseResource(%q) accepted", in)
		}
	}
	if got := TableResource("ks", "t").Chain(); len(got) != 3 || got[1] != "data/ks" || got[2] != Root {
		t.Errorf("chain %v", got)
	}
}

func TestLocalDurable(t *testing.T) {
	b := &memBlob{}
	l, err := OpenLocal(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CreateRole("u", RoleOptions{Login: ptr(true), Password: ptr("x")}); err != nil {
		t.Fatal(err)
	}
	if err := l.Grant([]Permission{Select}, Root, "u"); err != nil {
		t.Fatal(err)
	}
	again, err := OpenLocal(b)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := again.Role(context.Background(), "u"); r == nil || !r.CanLogin {
		t.Fatalf("role after reopening: %+v", r)
	}
	if ps, _ := again.ListPermissions("u"); len(ps) != 1 || ps[0].Permission != Select {
		t.Fatalf("permissions after reopening: %+v", ps)
	}
	if err := again.DropRole("u"); err != nil {
		t.Fatal(err)
	}
	if ps, _ := again.ListPermissions(""); len(ps) != 0 {
		t.Fatalf("a dropped role's permissions remain: %+v", ps)
	}
}
