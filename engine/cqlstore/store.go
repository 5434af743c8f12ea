// Package cqlstore is the engine.Store on an Apache Cassandra 5 cluster,
// spoken to in CQL through github.com/apache/cassandra-gocql-driver/v2.
// See layout.go for the tables, schema.go for how they are created and
// checked, and docs/cassandra.md for every way it differs from the
// LevelDB store and from 0.6.
package cqlstore

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/schema"
)

// Cluster is how to reach a Cassandra cluster. The zero value of each
// optional field means its default.
type Cluster struct {
	// Hosts are the contact points, HOST:PORT (or HOST, port 9042).
	Hosts []string
	// Username and Password log in with PasswordAuthenticator when
	// Username is set.
	Username, Password string
	// TLSCA is a PEM file of the certificates that sign the nodes'; when
	// set (or TLSCert is), connections use TLS.
	TLSCA string
	// TLSCert and TLSKey are a PEM client certificate and its key, for
	// nodes that require client authentication.
	TLSCert, TLSKey string
	// TLSServerName is the name the nodes' certificates must carry; when
	// empty, the certificate chain is checked but not the host name (the
	// contact points are often addresses the certificates do not name).
	TLSServerName string
	// LocalDC is the local data center: requests go to its nodes first,
	// and DC-aware placement strategies replicate there.
	LocalDC string
	// Timeout bounds each request to the cluster and connecting. Default 10s.
	Timeout time.Duration

	// translate, when set, rewrites the addresses the nodes announce
	// before connecting to them (tests put a proxy in front of a node).
	translate gocql.AddressTranslator
}

// schemaTimeout bounds one schema statement.
const schemaTimeout = 2 * time.Minute

func (c Cluster) timeout() time.Duration {
	if c.Timeout <= 0 {
		return 10 * time.Second
	}
	return c.Timeout
}

// Connect opens a session on the cluster. The error names the contact
// points when none answers.
func (c Cluster) Connect() (*gocql.Session, error) { return c.connect(nil) }

// connect opens a session whose requests and connections m counts, when
// not nil.
func (c Cluster) connect(m *metrics) (*gocql.Session, error) {
	if len(c.Hosts) == 0 {
		return nil, fmt.Errorf("no Cassandra contact points given")
	}
	proto := 5
	s, err := c.session(m, proto)
	if err != nil && strings.Contains(err.Error(), "unsupported protocol version 5") {
		// Cassandra 3.11 speaks protocol 4 (5 only as a beta it refuses
		// without the beta flag).
		proto = 4
		s, err = c.session(m, proto)
	}
	if err != nil {
		return nil, err
	}
	// A cluster in the middle of a rolling upgrade from 3.11 has nodes of
	// protocol 4 only: a session of protocol 5 could not reach them.
	versions, err := releaseVersions(s)
	if err != nil {
		s.Close()
		return nil, err
	}
	need4 := false
	for _, v := range versions {
		major, minor := releaseMajor(v)
		if major < 3 || (major == 3 && minor < 11) {
			s.Close()
			return nil, fmt.Errorf("the Cassandra cluster at %s has a node of Cassandra %s: thriftd needs Cassandra 3.11, 4.0, 4.1 or 5.0", strings.Join(c.Hosts, ","), v)
		}
		need4 = need4 || major < 4
	}
	if need4 && proto == 5 {
		s.Close()
		return c.session(m, 4)
	}
	return s, nil
}

// registeredTypes are the driver's types and EmptyType, the type of the
// value column DROP COMPACT STORAGE adds to a compact table of
// clustering columns alone: its values (always empty) are read and
// written as blobs.
var registeredTypes = func() *gocql.RegisteredTypes {
	r := gocql.GlobalTypes.Copy()
	if err := r.AddAlias("EmptyType", "blob"); err != nil {
		panic(err)
	}
	return r
}()

// session opens a session of protocol version proto.
func (c Cluster) session(m *metrics, proto int) (*gocql.Session, error) {
	cc := gocql.NewCluster(c.Hosts...)
	// The nodes the driver finds through system.peers, which names no
	// native port before Cassandra 4.0 (and on protocol 4), are reached
	// on cc.Port: the contact points' own port when they share one, not
	// the driver's 9042 (a 3.11 ring on another port would otherwise be
	// reached through its contact node alone).
	if p, ok := sharedPort(c.Hosts); ok {
		cc.Port = p
	}
	// The driver's timeout is per connection, and schema changes (a
	// keyspace drop flushes and snapshots) take far longer than data
	// requests: the session allows schemaTimeout, and the store bounds
	// each data request by Timeout through its context (Store.withRequestTimeout).
	cc.Timeout = max(c.timeout(), schemaTimeout)
	cc.ConnectTimeout = c.timeout()
	cc.WriteTimeout = c.timeout()
	cc.Consistency = gocql.One
	cc.NumConns = 2
	// A node the driver marked down (a busy node whose connections
	// missed their heartbeats) is tried again every second, not every
	// minute: requests fail while it stays down (clusterError).
	cc.ReconnectInterval = time.Second
	// Cassandra 4 and 5 speak protocol 5, 3.11 protocol 4 (connect
	// chooses); naming it skips the driver's negotiation.
	cc.ProtoVersion = proto
	cc.RegisteredTypes = registeredTypes
	cc.Logger = slogLogger{}
	if m != nil {
		cc.QueryObserver, cc.BatchObserver, cc.ConnectObserver = m, m, m
	}
	cc.AddressTranslator = c.translate
	// Protocols 4 and 5 carry the timestamps thriftd sets with USING
	// TIMESTAMP unchanged.
	if c.LocalDC != "" {
		cc.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.DCAwareRoundRobinPolicy(c.LocalDC))
	} else {
		cc.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	}
	if c.Username != "" {
		cc.Authenticator = gocql.PasswordAuthenticator{Username: c.Username, Password: c.Password}
	}
	if c.TLSCA != "" || c.TLSCert != "" {
		cfg, err := c.tlsConfig()
		if err != nil {
			return nil, err
		}
		cc.SslOpts = &gocql.SslOptions{Config: cfg, EnableHostVerification: c.TLSServerName != ""}
	}
	s, err := cc.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("cannot reach the Cassandra cluster at %s: %w", strings.Join(c.Hosts, ","), err)
	}
	return s, nil
}

func (c Cluster) tlsConfig() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: c.TLSServerName}
	if c.TLSCA != "" {
		pem, err := os.ReadFile(c.TLSCA)
		if err != nil {
			return nil, fmt.Errorf("TLS CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("TLS CA file %s holds no PEM certificate", c.TLSCA)
		}
		cfg.RootCAs = pool
	}
	if c.TLSCert != "" || c.TLSKey != "" {
		cert, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("TLS client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	if c.TLSServerName == "" {
		// Verify the chain against RootCAs, but not the host name.
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return fmt.Errorf("the node sent no certificate")
			}
			opts := x509.VerifyOptions{Roots: cfg.RootCAs, Intermediates: x509.NewCertPool()}
			for _, ic := range cs.PeerCertificates[1:] {
				opts.Intermediates.AddCert(ic)
			}
			_, err := cs.PeerCertificates[0].Verify(opts)
			return err
		}
	}
	return cfg, nil
}

// slogLogger drops the driver's own log lines; the store logs what
// matters through its Logger, with context.
type slogLogger struct{}

func (slogLogger) Error(string, ...gocql.LogField)   {}
func (slogLogger) Warning(string, ...gocql.LogField) {}
func (slogLogger) Info(string, ...gocql.LogField)    {}
func (slogLogger) Debug(string, ...gocql.LogField)   {}

// Options configures a Store.
type Options struct {
	Cluster Cluster
	// Prefix starts every CQL keyspace name thriftd creates.
	Prefix string
	// GCGraceSeconds is each table's gc_grace_seconds, and how long a
	// deleted row stays a range ghost (storage-conf.xml's GCGraceSeconds).
	GCGraceSeconds int
	// Logger receives schema changes and refusals. Default: discard.
	Logger *slog.Logger
	// Concurrency bounds the requests one call sends at once (GetMany,
	// Apply of several rows, Range). Default 16.
	Concurrency int
	// Schema, when set, gives the schema to serve from the encoded schema
	// the cluster records under the prefix (nil when none): Open serves
	// what it returns instead of the schema it is given, so that a
	// restarted thriftd serves the column families created at run time.
	Schema func(recorded []byte) (*schema.Schema, error)
	// Adopt names CQL keyspaces thriftd did not create, without the
	// prefix, whose tables of a Thrift shape it serves in place and never
	// changes (adopt.go, adoptserve.go).
	Adopt []string
}

// Store is an engine.Store on a Cassandra cluster.
type Store struct {
	session *gocql.Session
	opts    Options
	part    dht.Partitioner
	ordered bool // the cluster is ByteOrdered: key blobs are RowKeys
	cfs     atomic.Pointer[map[cfName]*family]
	token   dht.Token
	metrics *metrics // nil when the store only drops a prefix
	// rowsPerPage is the page size of a key walk (walkKeys) and of a
	// paged read (pages); 0 is pageSize. Tests make it small to read many
	// pages.
	rowsPerPage int

	mu     sync.RWMutex
	closed bool

	// schemaMu serializes schema changes and guards catalog and current.
	schemaMu sync.Mutex
	catalog  catalogState
	current  *schema.Schema           // the schema served
	adopted  atomic.Pointer[adoption] // set by Open and FollowAdopted

	indexes indexState // KEYS indexes seen built and being built (index.go)

	// The last finding of listening, and when it was made.
	probeMu  sync.Mutex
	probedAt atomic.Int64
	probedUp atomic.Bool

	// bgCtx ends at Close; bg counts the background work under it
	// (index builds).
	bgCtx  context.Context
	stopBG context.CancelFunc
	bg     sync.WaitGroup

	// recordHook, set by tests, answers the schema record's transaction
	// in place of the cluster when done.
	recordHook func(ctx context.Context, q *gocql.Query, attempt int) (applied, done bool, err error)
}

type cfName struct{ keyspace, name string }

var _ engine.Store = (*Store)(nil)

// Open connects to the cluster, checks that its partitioner can keep the
// row order s.Partitioner promises, creates the keyspaces and tables s
// declares when missing and refuses a schema that drifted from what the
// keyspaces record. ctx bounds the whole start-up.
func Open(ctx context.Context, s *schema.Schema, o Options) (*Store, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 16
	}
	if _, err := clusterPartitionerFor(s.Partitioner); err != nil {
		return nil, err
	}
	if err := checkNames(s, o.Prefix); err != nil {
		return nil, err
	}
	m := newMetrics()
	session, err := o.Cluster.connect(m)
	if err != nil {
		return nil, err
	}
	st := &Store{session: session, opts: o, part: s.Partitioner, metrics: m}
	st.bgCtx, st.stopBG = context.WithCancel(context.Background())
	if err := st.open(ctx, s); err != nil {
		st.stopBG()
		st.bg.Wait()
		session.Close()
		return nil, err
	}
	return st, nil
}

func (st *Store) open(ctx context.Context, s *schema.Schema) error {
	local, err := readLocal(ctx, st.session)
	if err != nil {
		return err
	}
	want, _ := clusterPartitionerFor(s.Partitioner)
	if local.partitioner != want {
		return fmt.Errorf("the Cassandra cluster at %s uses %s, which cannot keep rows in the order storage-conf.xml's Partitioner %s promises (that needs %s); use a cluster with %s or change the Partitioner",
			strings.Join(st.opts.Cluster.Hosts, ","), local.partitioner, s.Partitioner.Name(), want, want)
	}
	if err := st.awaitHosts(ctx); err != nil {
		return err
	}
	st.ordered = want == byteOrderedCluster
	st.token = st.nodeToken(local.tokens)
	if st.opts.Cluster.LocalDC == "" {
		st.opts.Cluster.LocalDC = local.dataCenter
	}
	if st.opts.Schema != nil {
		st.schemaMu.Lock()
		err := st.readRecord(ctx)
		recorded := bytes.Clone(st.catalog.encoded)
		st.schemaMu.Unlock()
		if err != nil {
			return err
		}
		if s, err = st.opts.Schema(recorded); err != nil {
			return err
		}
		if err := checkNames(s, st.opts.Prefix); err != nil {
			return err
		}
	}
	if err := st.adopt(ctx, s); err != nil {
		return err
	}
	return st.settled(ctx, func() error { return st.ensureSchema(ctx, s) })
}

// Token is a ring token for describe_ring: the contacted node's first
// token where the cluster's tokens are 0.6 tokens (Random, Murmur3), else
// a random token.
func (st *Store) Token() dht.Token { return st.token }

func (st *Store) nodeToken(tokens []string) dht.Token {
	if !st.ordered && len(tokens) > 0 {
		if t, err := st.part.ParseToken(tokens[0]); err == nil && len(t) > 0 {
			return t
		}
	}
	return st.part.RandomToken()
}

// LimitsRequestTime implements engine.RequestTimeLimiter: every data request
// is limited to Cluster.Timeout (withRequestTimeout).
func (st *Store) LimitsRequestTime() bool { return true }

var _ engine.RequestTimeLimiter = (*Store)(nil)

// withRequestTimeout limits one data request to the cluster to
// Cluster.Timeout, and carries the request's state (request) for
// clusterError: one context value and one deadline per request.
func (st *Store) withRequestTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	t := st.opts.Cluster.timeout()
	rc := &requestContext{Context: ctx, r: request{timeout: t, store: st}}
	return context.WithTimeoutCause(rc, t, errRequestTimeout)
}

// requestContext is ctx with its request's state as the value of
// requestKey: context.WithValue and the state in one allocation. Its
// Done is its parent's, so the deadline's context still registers with
// the parent's cancellation directly, as under a WithValue.
type requestContext struct {
	context.Context
	r request
}

// Value implements context.Context.
func (c *requestContext) Value(key any) any {
	if _, ok := key.(requestKey); ok {
		return &c.r
	}
	return c.Context.Value(key)
}

// probeInterval is how long a probe's finding is kept: a storm of failed
// requests probes the nodes once per interval, not once each.
const probeInterval = time.Second

// listening reports whether a contact point of the cluster, or any node
// the driver knows, accepts a TCP connection within half a second.
func (st *Store) listening() bool {
	now := time.Now().UnixNano()
	if last := st.probedAt.Load(); now-last < int64(probeInterval) {
		return st.probedUp.Load()
	}
	st.probeMu.Lock()
	defer st.probeMu.Unlock()
	if last := st.probedAt.Load(); now-last < int64(probeInterval) {
		return st.probedUp.Load()
	}
	up := false
	for _, h := range st.opts.Cluster.Hosts {
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(h, "9042")
		}
		if c, err := net.DialTimeout("tcp", h, 500*time.Millisecond); err == nil {
			c.Close()
			up = true
			break
		}
	}
	st.probedUp.Store(up)
	st.probedAt.Store(time.Now().UnixNano())
	return up
}

// enter marks a call in flight; it fails once the store is closed.
func (st *Store) enter() error {
	st.mu.RLock()
	if st.closed {
		st.mu.RUnlock()
		return engine.ErrClosed
	}
	return nil
}

func (st *Store) leave() { st.mu.RUnlock() }

// Close stops background work, waits for calls in flight and closes the
// session.
func (st *Store) Close() error {
	if st.stopBG != nil {
		st.stopBG()
		st.bg.Wait()
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return nil
	}
	st.closed = true
	st.session.Close()
	return nil
}

func (st *Store) family(keyspace, cf string) (*family, error) {
	f := (*st.cfs.Load())[cfName{keyspace, cf}]
	if f == nil {
		return nil, fmt.Errorf("cqlstore: unknown column family %s.%s", keyspace, cf)
	}
	return f, nil
}

// logger is the store's Logger, or one that discards (a store made only
// to drop a prefix has none).
func (st *Store) logger() *slog.Logger {
	if st.opts.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return st.opts.Logger
}

// releaseVersions reads the release of every node the contacted one knows
// (system.local and system.peers' release_version).
func releaseVersions(s *gocql.Session) ([]string, error) {
	var local string
	if err := s.Query(`SELECT release_version FROM system.local WHERE key = 'local'`).Scan(&local); err != nil {
		return nil, fmt.Errorf("read the node's release from system.local: %w", err)
	}
	out := []string{local}
	iter := s.Query(`SELECT release_version FROM system.peers`).Iter()
	var v string
	for iter.Scan(&v) {
		if v != "" {
			out = append(out, v)
		}
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("read the nodes' releases from system.peers: %w", err)
	}
	return out, nil
}

// releaseMajor parses the major and minor numbers of a release
// ("3.11.19", "5.0.9", "4.1-SNAPSHOT").
func releaseMajor(v string) (major, minor int) {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) > 0 {
		major, _ = strconv.Atoi(strings.TrimFunc(parts[0], func(r rune) bool { return r < '0' || r > '9' }))
	}
	if len(parts) > 1 {
		digits := parts[1]
		for i, r := range digits {
			if r < '0' || r > '9' {
				digits = digits[:i]
				break
			}
		}
		minor, _ = strconv.Atoi(digits)
	}
	return major, minor
}

// sharedPort is the port every contact point in hosts names, when they
// all name the same one.
func sharedPort(hosts []string) (int, bool) {
	port := ""
	for _, h := range hosts {
		_, p, err := net.SplitHostPort(h)
		if err != nil || (port != "" && p != port) {
			return 0, false
		}
		port = p
	}
	n, err := strconv.Atoi(port)
	return n, err == nil && n > 0
}
