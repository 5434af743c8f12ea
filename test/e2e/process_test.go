package e2e

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// TestPortInUseIsAClearError starts a second thriftd on the first one's
// port: it must exit with an error naming the address.
func TestPortInUseIsAClearError(t *testing.T) {
	n := start(t, fixture("storage-conf-0.6-test.xml"))
	out, err := n.Run("-listen", n.Addr, "-data", t.TempDir())
	if err == nil {
		t.Fatal("a second thriftd started on a port in use")
	}
	if !strings.Contains(out, "cannot listen for Thrift clients on "+n.Addr) || !strings.Contains(out, "address already in use") {
		t.Errorf("the error does not say the port is taken:\n%s", out)
	}
}

// TestDataSurvivesRestart writes, stops thriftd cleanly, starts it on the
// same data and reads everything back.
func TestDataSurvivesRestart(t *testing.T) {
	n := start(t, fixture("storage-conf-0.6-default.xml"))
	c := n.client(false)
	var want []string
	for i := 0; i < 200; i++ {
		k := "row" + itoa(int64(i))
		want = append(want, k)
		must(t, c.Insert(ctx, ks1, k, path("Standard1", nil, []byte("c")), []byte(k), 1, one))
	}
	n.Restart()
	c = n.client(true)
	rs, err := c.MultigetSlice(ctx, ks1, want, &cassandra.ColumnParent{ColumnFamily: "Standard1"}, all(), one)
	must(t, err)
	for _, k := range want {
		if names(rs[k]) != "c="+k {
			t.Fatalf("after restart, row %s = %q", k, names(rs[k]))
		}
	}
}

// TestSimpleAuthenticator logs in with the fixture property files.
func TestSimpleAuthenticator(t *testing.T) {
	text, err := os.ReadFile(fixture("storage-conf-0.6-test.xml"))
	must(t, err)
	conf := filepath.Join(t.TempDir(), "storage-conf.xml")
	auth := bytes.Replace(text, []byte("<Keyspaces>"), []byte("<Authenticator>org.apache.cassandra.auth.SimpleAuthenticator</Authenticator>\n   <Keyspaces>"), 1)
	must(t, os.WriteFile(conf, auth, 0o644))
	n := start(t, conf, "-passwd", fixture("passwd.properties"), "-access", fixture("access.properties"))
	c := n.client(false)
	_, err = c.GetSlice(ctx, ks1, "k", &cassandra.ColumnParent{ColumnFamily: "Standard1"}, all(), one)
	if w := why(t, err); w != "Login is required before any other API calls" {
		t.Errorf("before login: %q", w)
	}
	creds := func(u, p string) *cassandra.AuthenticationRequest {
		return &cassandra.AuthenticationRequest{Credentials: map[string]string{"username": u, "password": p}}
	}
	err = c.Login(ctx, ks1, creds("Grace Hopper", "wrong"))
	var authn *cassandra.AuthenticationException
	if !errors.As(err, &authn) || authn.Why != "Given password in password mode PLAIN could not be validated for user Grace Hopper" {
		t.Errorf("wrong password: %v", err)
	}
	err = c.Login(ctx, ks1, creds("bob", "builder42"))
	var authz *cassandra.AuthorizationException
	if !errors.As(err, &authz) || authz.Why != "User bob could not be authorized to use keyspace Keyspace1" {
		t.Errorf("bob on Keyspace1: %v", err)
	}
	must(t, c.Login(ctx, ks1, creds("Grace Hopper", "cobol1959")))
	if _, err := c.GetSlice(ctx, ks1, "k", &cassandra.ColumnParent{ColumnFamily: "Standard1"}, all(), one); err != nil {
		t.Errorf("after login: %v", err)
	}
	// Login belongs to the connection.
	other := n.client(true)
	_, err = other.GetSlice(ctx, ks1, "k", &cassandra.ColumnParent{ColumnFamily: "Standard1"}, all(), one)
	if w := why(t, err); w != "Login is required before any other API calls" {
		t.Errorf("second connection: %q", w)
	}
}

// TestTombstonesArePurgedAfterGCGrace deletes a row with GCGraceSeconds 1:
// until the purge it comes back from range reads as a ghost and shadows
// older writes; after it (the sweep runs at start-up) it is gone, as 0.6's
// compaction removed it.
func TestTombstonesArePurgedAfterGCGrace(t *testing.T) {
	text, err := os.ReadFile(fixture("storage-conf-0.6-test.xml"))
	must(t, err)
	conf := filepath.Join(t.TempDir(), "storage-conf.xml")
	// Three seconds leave the checks before the purge time to run on a
	// loaded machine.
	short := bytes.Replace(text, []byte("</Storage>"), []byte("<GCGraceSeconds>3</GCGraceSeconds>\n</Storage>"), 1)
	must(t, os.WriteFile(conf, short, 0o644))
	n := start(t, conf)
	c := n.client(false)
	parent := &cassandra.ColumnParent{ColumnFamily: "Standard1"}
	for _, k := range []string{"gone", "kept"} {
		must(t, c.Insert(ctx, ks1, k, path("Standard1", nil, []byte("c")), []byte(k), 5, one))
	}
	must(t, c.Remove(ctx, ks1, "gone", path("Standard1", nil, nil), 10, one))
	rows := func() string {
		rs, err := c.GetRangeSlices(ctx, ks1, parent, all(), &cassandra.KeyRange{StartKey: thrift.StringPtr(""), EndKey: thrift.StringPtr(""), Count: 100}, one)
		must(t, err)
		var out []string
		for _, r := range rs {
			out = append(out, r.Key+":"+names(r.Columns))
		}
		return strings.Join(out, " ")
	}
	if got := rows(); got != "gone: kept:c=kept" {
		t.Fatalf("before the purge: %s", got)
	}
	// An older write stays hidden while the deletion is kept.
	must(t, c.Insert(ctx, ks1, "gone", path("Standard1", nil, []byte("old")), []byte("v"), 9, one))
	if got := rows(); got != "gone: kept:c=kept" {
		t.Fatalf("older write after the deletion: %s", got)
	}
	time.Sleep(3100 * time.Millisecond)
	n.Restart()
	c = n.client(false)
	// The start-up purge runs beside serving: give it a bounded while.
	got := rows()
	for deadline := time.Now().Add(2 * time.Minute); got != "kept:c=kept" && time.Now().Before(deadline); got = rows() {
		time.Sleep(100 * time.Millisecond)
	}
	if got != "kept:c=kept" {
		t.Errorf("after GCGraceSeconds and the purge: %s", got)
	}
}
