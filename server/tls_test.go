package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/internal/testcerts"
)

var (
	certsOnce sync.Once
	certs     *testcerts.Set
	otherCA   *testcerts.Set
	certsErr  error
)

// testCerts are the certificates of this package's tests, made once.
func testCerts(t *testing.T) (*testcerts.Set, *testcerts.Set) {
	t.Helper()
	certsOnce.Do(func() {
		if certs, certsErr = testcerts.New("thriftd test"); certsErr == nil {
			otherCA, certsErr = testcerts.New("stranger")
		}
	})
	if certsErr != nil {
		t.Fatal(certsErr)
	}
	return certs, otherCA
}

// tlsServer is a Server with a plain and a TLS listener side by side.
type tlsServer struct {
	*testServer
	tlsAddr string
}

// startTLSServer starts a server like startServer, with a TLS listener
// beside the plain one.
func startTLSServer(t *testing.T, opts Options, tt TLS) *tlsServer {
	t.Helper()
	ts := startServer(t, opts, nil)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- ts.ServeTLS(l, tt) }()
	t.Cleanup(func() {
		// startServer's cleanup, registered first, runs after this one:
		// shut down here so that ServeTLS has returned before it checks.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		ts.Shutdown(ctx)
		if err := <-served; !errors.Is(err, ErrServerClosed) {
			t.Errorf("ServeTLS returned %v, want ErrServerClosed", err)
		}
	})
	return &tlsServer{testServer: ts, tlsAddr: l.Addr().String()}
}

func serverTLSConfig(t *testing.T, requireClientCert bool) *tls.Config {
	c, _ := testCerts(t)
	cfg := &tls.Config{Certificates: []tls.Certificate{c.Server}}
	if requireClientCert {
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
		cfg.ClientCAs = c.Pool()
	}
	return cfg
}

// dialTLSClient connects a generated client of kind k over TLS, presenting
// the given client certificates.
func dialTLSClient(t *testing.T, addr string, k clientKind, certs ...tls.Certificate) (*cassandra.CassandraClient, thrift.TTransport, string) {
	t.Helper()
	c, _ := testCerts(t)
	nc, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr,
		&tls.Config{RootCAs: c.Pool(), ServerName: "localhost", Certificates: certs})
	if err != nil {
		t.Fatalf("TLS dial: %v", err)
	}
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	trans := k.transport(thrift.NewTSocketFromConnConf(nc, clientConf))
	t.Cleanup(func() { trans.Close() })
	return cassandra.NewCassandraClientFactory(trans, k.protocolFactory()), trans, nc.LocalAddr().String()
}

// Every framing and protocol works over TLS as on the plain port beside it,
// on one server, and the connections are counted and logged as any.
func TestTLSBesidePlain(t *testing.T) {
	ts := startTLSServer(t, Options{}, TLS{Config: serverTLSConfig(t, false)})
	ctx := context.Background()
	for _, k := range clientKinds {
		t.Run(k.name, func(t *testing.T) {
			secure, trans, peer := dialTLSClient(t, ts.tlsAddr, k)
			plain, _, _ := dialClient(t, ts.addr, k)
			for i := 1; i <= 3; i++ {
				for _, c := range []*cassandra.CassandraClient{secure, plain} {
					name, err := c.DescribeClusterName(ctx)
					if want := fmt.Sprintf("calls=%d", i); err != nil || name != want {
						t.Fatalf("call %d: %q, %v; want %q", i, name, err, want)
					}
				}
			}
			cols, err := secure.GetSlice(ctx, "Keyspace1", strings.Repeat("k", 100000), &cassandra.ColumnParent{ColumnFamily: "Standard1"},
				sliceArgs("").Predicate, cassandra.ConsistencyLevel_QUORUM)
			if err != nil {
				t.Fatal(err)
			}
			checkSliceEcho(t, cols, strings.Repeat("k", 100000))
			if open := ts.Stats().Open; open < 2 {
				t.Errorf("Stats().Open = %d with a TLS and a plain connection open", open)
			}
			trans.Close()
			ts.logs.waitRecord(t, map[string]string{
				"msg": "connection closed", "peer": peer, "reason": "client closed",
				"framing": k.name, "tls": "true", "requests": "4",
			})
		})
	}
	if f := ts.Stats().TLSFailures; f != 0 {
		t.Errorf("Stats().TLSFailures = %d, want 0", f)
	}
}

// A client speaking plain Thrift to the TLS port fails at once; it is
// logged with its address, once for many attempts; other connections carry
// on.
func TestTLSRefusesPlainClient(t *testing.T) {
	ts := startTLSServer(t, Options{}, TLS{Config: serverTLSConfig(t, false)})
	ctx := context.Background()
	secure, _, _ := dialTLSClient(t, ts.tlsAddr, clientKinds[1])
	if _, err := secure.DescribeVersion(ctx); err != nil {
		t.Fatal(err)
	}

	const attempts = 5
	for i := range attempts {
		for _, k := range []clientKind{clientKinds[0], clientKinds[1]} {
			c, _, _ := dialClient(t, ts.tlsAddr, k)
			if v, err := c.DescribeVersion(ctx); err == nil {
				t.Fatalf("attempt %d: a plain %s client got %q from the TLS port", i, k.name, v)
			}
		}
	}
	waitFor(t, "the refusals to be counted", func() bool { return ts.Stats().TLSFailures == 2*attempts })
	refusals := 0
	for _, r := range ts.logs.records() {
		if r["msg"] == "connection refused: TLS handshake failed" {
			refusals++
			if r["level"] != "WARN" || !strings.HasPrefix(fmt.Sprint(r["peer"]), "127.0.0.1:") || r["reason"] != "tls handshake failed" {
				t.Errorf("refusal logged as %v", r)
			}
		}
	}
	if refusals != 1 {
		t.Errorf("%d refusal lines for %d attempts from one host, want 1:\n%s", refusals, 2*attempts, ts.logs.dump())
	}
	// The connections already open, and new ones, are served.
	if _, err := secure.DescribeVersion(ctx); err != nil {
		t.Errorf("the TLS connection opened before: %v", err)
	}
	plain, _, _ := dialClient(t, ts.addr, clientKinds[0])
	if _, err := plain.DescribeVersion(ctx); err != nil {
		t.Errorf("the plain port: %v", err)
	}
	again, _, _ := dialTLSClient(t, ts.tlsAddr, clientKinds[3])
	if _, err := again.DescribeVersion(ctx); err != nil {
		t.Errorf("a new TLS connection: %v", err)
	}
	if open := ts.Stats().Open; open != 3 {
		t.Errorf("Stats().Open = %d, want 3 (the refused connections are gone)", open)
	}
}

// A TLS client on the plain port is closed with one line naming the
// mistake and its address; the connections open beside it carry on.
func TestTLSClientOnPlainPort(t *testing.T) {
	ts := startTLSServer(t, Options{}, TLS{Config: serverTLSConfig(t, false)})
	ctx := context.Background()
	plain, _, _ := dialClient(t, ts.addr, clientKinds[0])
	if _, err := plain.DescribeVersion(ctx); err != nil {
		t.Fatal(err)
	}
	c, _ := testCerts(t)
	const attempts = 4
	for range attempts {
		nc, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", ts.addr,
			&tls.Config{RootCAs: c.Pool(), ServerName: "localhost"})
		if err == nil {
			nc.Close()
			t.Fatal("a TLS handshake succeeded on the plain port")
		}
	}
	// One line a minute per host, however often a client retries.
	waitFor(t, "the closes to be counted", func() bool { return ts.Stats().Failed == attempts })
	var line map[string]any
	lines := 0
	for _, r := range ts.logs.records() {
		if r["reason"] == "tls client on a plain port" {
			line = r
			lines++
		}
	}
	if lines != 1 {
		t.Fatalf("%d lines for %d TLS clients on the plain port, want 1:\n%s", lines, attempts, ts.logs.dump())
	}
	if line["msg"] != "connection closed" || line["level"] != "WARN" || !strings.HasPrefix(fmt.Sprint(line["peer"]), "127.0.0.1:") ||
		!strings.Contains(fmt.Sprint(line["err"]), "began a TLS handshake on a port that speaks plain Thrift") {
		t.Errorf("logged as %v", line)
	}
	if _, err := plain.DescribeVersion(ctx); err != nil {
		t.Errorf("the plain connection opened before: %v", err)
	}
	secure, _, _ := dialTLSClient(t, ts.tlsAddr, clientKinds[1])
	if _, err := secure.DescribeVersion(ctx); err != nil {
		t.Errorf("the TLS port: %v", err)
	}
}

// With client certificates required, only a client presenting one signed
// by the trusted authority is served.
func TestTLSClientCertificates(t *testing.T) {
	c, stranger := testCerts(t)
	ts := startTLSServer(t, Options{}, TLS{Config: serverTLSConfig(t, true)})
	ctx := context.Background()

	good, _, _ := dialTLSClient(t, ts.tlsAddr, clientKinds[1], c.Client)
	if v, err := good.DescribeVersion(ctx); err != nil || v != "2.2.0" {
		t.Fatalf("with a trusted client certificate: %q, %v", v, err)
	}
	for _, tc := range []struct {
		name  string
		certs []tls.Certificate
	}{
		{"no client certificate", nil},
		{"an untrusted client certificate", []tls.Certificate{stranger.Client}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := ts.Stats().TLSFailures
			// A TLS 1.3 client finishes its side of the handshake before the
			// server has checked its certificate: the refusal shows on the
			// first call, or already in the dial.
			nc, err := tls.Dial("tcp", ts.tlsAddr, &tls.Config{RootCAs: c.Pool(), ServerName: "localhost", Certificates: tc.certs})
			if err == nil {
				nc.SetDeadline(time.Now().Add(10 * time.Second))
				trans := thrift.NewTFramedTransportConf(thrift.NewTSocketFromConnConf(nc, clientConf), clientConf)
				defer trans.Close()
				client := cassandra.NewCassandraClientFactory(trans, clientKinds[1].protocolFactory())
				if v, err := client.DescribeVersion(ctx); err == nil {
					t.Fatalf("served %q", v)
				}
			}
			waitFor(t, "the refusal to be counted", func() bool { return ts.Stats().TLSFailures == before+1 })
		})
	}
	rec := ts.logs.waitRecord(t, map[string]string{"msg": "connection refused: TLS handshake failed"})
	if !strings.Contains(fmt.Sprint(rec["err"]), "certificate") {
		t.Errorf("refusal logged without its cause: %v", rec)
	}
	// The trusted client's connection is unaffected.
	if _, err := good.DescribeVersion(ctx); err != nil {
		t.Errorf("the trusted client after the refusals: %v", err)
	}
}

// A handshake that stalls is cut off at the handshake timeout, and gives
// its connection slot back.
func TestTLSHandshakeTimeout(t *testing.T) {
	ts := startTLSServer(t, Options{MaxConnections: 1}, TLS{Config: serverTLSConfig(t, false), HandshakeTimeout: 300 * time.Millisecond})
	stalled := dialRaw(t, ts.tlsAddr)
	stalled.send(t, []byte{0x16, 0x03, 0x01}) // a record header, never finished
	start := time.Now()
	stalled.expectClosed(t, 5*time.Second)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("closed after %v, want about the 300ms handshake timeout", d)
	}
	ts.logs.waitRecord(t, map[string]string{"msg": "connection refused: TLS handshake failed", "reason": "tls handshake timeout"})
	waitFor(t, "the slot to be given back", func() bool { return ts.Stats().Open == 0 })
	c, _, _ := dialTLSClient(t, ts.tlsAddr, clientKinds[0])
	if _, err := c.DescribeVersion(context.Background()); err != nil {
		t.Errorf("the next client: %v", err)
	}
}

// A connection that connects and leaves without a byte (a port check) is
// not worth a warning.
func TestTLSSilentClientNotLogged(t *testing.T) {
	ts := startTLSServer(t, Options{}, TLS{Config: serverTLSConfig(t, false)})
	nc, err := net.Dial("tcp", ts.tlsAddr)
	if err != nil {
		t.Fatal(err)
	}
	peer := nc.LocalAddr().String()
	nc.Close()
	ts.logs.waitRecord(t, map[string]string{"msg": "connection closed", "peer": peer, "reason": "client closed", "level": "DEBUG"})
	if f := ts.Stats().TLSFailures; f != 0 {
		t.Errorf("Stats().TLSFailures = %d, want 0", f)
	}
}

// With Optional, the TLS port serves plain clients too, and a connection
// that has sent nothing yet waits as an idle one, beyond the handshake
// timeout (a pool opens connections ahead of use).
func TestTLSOptional(t *testing.T) {
	ts := startTLSServer(t, Options{}, TLS{Config: serverTLSConfig(t, false), Optional: true, HandshakeTimeout: 200 * time.Millisecond})
	ctx := context.Background()
	for _, k := range clientKinds {
		t.Run(k.name, func(t *testing.T) {
			secure, _, _ := dialTLSClient(t, ts.tlsAddr, k)
			plain, trans, peer := dialClient(t, ts.tlsAddr, k)
			time.Sleep(400 * time.Millisecond)
			for _, c := range []*cassandra.CassandraClient{secure, plain} {
				if v, err := c.DescribeVersion(ctx); err != nil || v != "2.2.0" {
					t.Fatalf("describe_version: %q, %v", v, err)
				}
			}
			trans.Close()
			ts.logs.waitRecord(t, map[string]string{"msg": "connection closed", "peer": peer, "tls": "false"})
		})
	}
}

// Shutdown closes connections still in their handshake at once, as idle
// ones, rather than waiting for their timeout.
func TestTLSShutdownDuringHandshake(t *testing.T) {
	ts := startTLSServer(t, Options{}, TLS{Config: serverTLSConfig(t, false), HandshakeTimeout: time.Minute})
	stalled := dialRaw(t, ts.tlsAddr)
	waitFor(t, "the connection to be accepted", func() bool { return ts.Stats().Open == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := ts.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Shutdown took %v", d)
	}
	stalled.expectClosed(t, time.Second)
	if f := ts.Stats().TLSFailures; f != 0 {
		t.Errorf("Stats().TLSFailures = %d, want 0: a shutdown is no client's fault", f)
	}
}

func TestFailureLogOncePerWindow(t *testing.T) {
	f := failureLog{window: time.Minute}
	t0 := time.Unix(1000, 0)
	steps := []struct {
		host       string
		at         time.Duration
		log        bool
		suppressed int
	}{
		{"a", 0, true, 0},
		{"a", time.Second, false, 0},
		{"b", time.Second, true, 0},
		{"a", 30 * time.Second, false, 0},
		{"a", 61 * time.Second, true, 2},
		{"a", 62 * time.Second, false, 0},
		{"a", 200 * time.Second, true, 1},
	}
	for i, s := range steps {
		log, n := f.allow(s.host, t0.Add(s.at))
		if log != s.log || n != s.suppressed {
			t.Errorf("step %d (%s at %v): allow = %v, %d; want %v, %d", i, s.host, s.at, log, n, s.log, s.suppressed)
		}
	}
	for i := range 2 * maxFailureHosts {
		f.allow(fmt.Sprint("host", i), t0)
	}
	if n := len(f.hosts); n > maxFailureHosts {
		t.Errorf("%d hosts remembered, want at most %d", n, maxFailureHosts)
	}
}

func TestServeTLSWithoutConfig(t *testing.T) {
	s := New(Options{}, newTestProcessor(nil))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ServeTLS(l, TLS{}); err == nil {
		t.Fatal("ServeTLS without a configuration served")
	}
}
