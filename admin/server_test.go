package admin

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine/ldbstore"
	"github.com/thriftd/thriftd/schema"
)

func TestFileSize(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0 bytes"},
		{1023, "1023 bytes"},
		{1024, "1 KB"},
		{1536, "1.5 KB"},
		{1071335991, "1021.71 MB"},
		{5 << 30, "5 GB"},
		{3 << 40, "3 TB"},
	} {
		if got := FileSize(c.n); got != c.want {
			t.Errorf("FileSize(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{"127.0.0.1": true, "::1": true, "localhost": true, "127.1.2.3": true,
		"0.0.0.0": false, "": false, "10.0.0.1": false, "example.com": false, "::": false} {
		if got := IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

// serve runs an endpoint over a real LevelDB store on a loopback port.
func serve(t *testing.T, token string, drain func(context.Context) error) (*Server, *Client) {
	t.Helper()
	p, err := dht.Lookup("RandomPartitioner")
	if err != nil {
		t.Fatal(err)
	}
	s := &schema.Schema{ClusterName: "Test", Partitioner: p, Keyspaces: map[string]*schema.Keyspace{
		"K": {Name: "K", ReplicationFactor: 1, ColumnFamilies: map[string]*schema.ColumnFamily{}},
	}}
	st, err := ldbstore.Open(t.TempDir(), s, ldbstore.Options{PurgeInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	reg := prometheus.NewRegistry()
	reg.MustRegister(st)
	srv, err := Listen(Options{Addr: "127.0.0.1:0", Token: token, Registry: reg, Store: st, Schema: s, Drain: drain,
		Node: Node{Address: "127.0.0.1", Token: "42", Started: time.Now().Add(-time.Minute)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(context.Background()) })
	return srv, &Client{Addr: srv.Addr().String(), Token: token}
}

func TestListenRefusals(t *testing.T) {
	if _, err := Listen(Options{Addr: "0.0.0.0:0"}); err == nil || !strings.Contains(err.Error(), "-admin-token-file") {
		t.Errorf("listening off loopback without a token: %v", err)
	}
	if _, err := Listen(Options{Addr: "nonsense"}); err == nil || !strings.Contains(err.Error(), "HOST:PORT") {
		t.Errorf("a bad address: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := Listen(Options{Addr: l.Addr().String()}); err == nil || !strings.Contains(err.Error(), "-admin off") {
		t.Errorf("a taken port: %v", err)
	}
}

func TestCommands(t *testing.T) {
	drained := false
	_, c := serve(t, "", func(context.Context) error { drained = true; return nil })
	info, err := c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Token != "42" || info.UptimeSeconds < 59 || info.HeapMaxMB <= 0 {
		t.Errorf("info: %+v", info)
	}
	if _, err := c.CFStats(ctx, "Nope", ""); err == nil || err.Error() != "unknown keyspace Nope" {
		t.Errorf("cfstats of an unknown keyspace: %v", err)
	}
	if _, err := c.Compact(ctx, "", "cf"); err == nil {
		t.Error("compacting a column family without its keyspace succeeded")
	}
	d, err := c.Snapshot(ctx, "a")
	if err != nil || d.Snapshot == nil || d.Snapshot.Name != "a" {
		t.Fatalf("snapshot: %+v %v", d, err)
	}
	if _, err := c.Snapshot(ctx, "a"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("a second snapshot a: %v", err)
	}
	if d, err := c.ClearSnapshot(ctx, ""); err != nil || len(d.Removed) != 1 {
		t.Errorf("clearsnapshot: %+v %v", d, err)
	}
	if _, err := c.Drain(ctx); err != nil || !drained {
		t.Errorf("drain: %v, drained %v", err, drained)
	}
	ring, err := c.Ring(ctx)
	if err != nil || len(ring) != 1 || ring[0].Status != "Down" {
		t.Errorf("ring after drain: %+v %v", ring, err)
	}
	// A command needs its method.
	resp, err := http.Get("http://" + c.Addr + "/v1/drain")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /v1/drain: %s", resp.Status)
	}
}

func TestToken(t *testing.T) {
	_, c := serve(t, "tok", nil)
	for path, want := range map[string]int{"/metrics": 200, "/v1/info": 401, "/debug/pprof/": 401} {
		resp, err := http.Get("http://" + c.Addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s without the token: %d, want %d", path, resp.StatusCode, want)
		}
		if want == 401 {
			var e Error
			if json.Unmarshal(body, &e) != nil || !strings.Contains(e.Error, "bearer token") {
				t.Errorf("GET %s without the token: %s", path, body)
			}
		}
	}
	if _, err := c.Info(ctx); err != nil {
		t.Errorf("info with the token: %v", err)
	}
	wrong := *c
	wrong.Token = "tok2"
	if _, err := wrong.Info(ctx); err == nil {
		t.Error("info with a wrong token succeeded")
	}
	if _, err := c.Drain(ctx); err == nil || !strings.Contains(err.Error(), "not available") {
		t.Errorf("drain without a drainer: %v", err)
	}
}

var ctx = context.Background()
