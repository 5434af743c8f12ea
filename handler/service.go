// Package handler is the Cassandra 0.6 Thrift service: it validates every
// call exactly as 0.6's CassandraServer and ThriftValidation did (same
// checks, same order, same messages), translates it into engine Queries and
// Mutations, and turns the results and errors back into the IDL's structs
// and exceptions. It knows nothing of sockets or framing (package server)
// nor of how data is stored (an engine.Store).
//
// docs/api.md lists, per method, what a client gets and where thriftd
// deliberately differs from 0.6.
package handler

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/config"
	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/rpcmetrics"
	"github.com/thriftd/thriftd/schema"
)

// Options is everything a Service needs. Schema (or Current) and Store
// are required.
type Options struct {
	// Schema is validated against; its Partitioner places and orders rows.
	Schema *schema.Schema
	// Current, when set, returns the schema to use instead of Schema: the
	// schema catalog's, which the 19.x API changes at run time, so that
	// keyspaces created there are served here too. Each use reads it
	// afresh.
	Current func() *schema.Schema
	// Store holds the data.
	Store engine.Store
	// Config supplies the cluster name, the text returned by
	// get_string_property("config file") and RpcTimeoutInMillis. Nil
	// means the Schema's cluster name, an empty text and no timeout.
	Config *config.Config
	// Auth decides login; nil means AllowAll. Guard, when set, takes its
	// place: PasswordAuthenticator and CassandraAuthorizer (package auth).
	Auth  Authenticator
	Guard auth.Gate
	// NodeAddress is the IP address clients should dial, reported by
	// describe_ring and the token map.
	NodeAddress string
	// NodeToken is this node's ring token.
	NodeToken dht.Token
	// Logger receives internal errors; nil means slog.Default().
	Logger *slog.Logger
	// Metrics receives the service's figures, shared with the 19.x
	// service; nil keeps them unexported.
	Metrics *rpcmetrics.Metrics
}

// Service is the state shared by every connection: the schema, the store
// and the node's identity. It is safe for concurrent use.
type Service struct {
	// schema is the schema at start; current, the one to use now.
	schema      *schema.Schema
	current     func() *schema.Schema
	v           validator
	store       engine.Store
	auth        Authenticator
	guard       auth.Gate
	clusterName string
	configText  string
	nodeAddress string
	nodeToken   dht.Token
	// timeout bounds each data call, as 0.6's RpcTimeoutInMillis bounded
	// the coordinator's wait; 0 means none.
	timeout time.Duration
	log     *slog.Logger
	metrics *rpcmetrics.Metrics
	// figures are the families' figures of the latest schema version a
	// call named (figures.go).
	figures atomic.Pointer[figures]
}

// sch is the current schema.
func (s *Service) sch() *schema.Schema { return s.current() }

// New returns a Service. It panics if o.Schema or o.Store is nil, which is
// a wiring mistake rather than a runtime condition.
func New(o Options) *Service {
	if o.Schema == nil && o.Current != nil {
		o.Schema = o.Current()
	}
	if o.Schema == nil || o.Store == nil {
		panic("handler: Options.Schema and Options.Store are required")
	}
	if o.Current == nil {
		fixed := o.Schema
		o.Current = func() *schema.Schema { return fixed }
	}
	m := o.Metrics
	if m == nil {
		m = rpcmetrics.New(prometheus.NewRegistry())
	}
	for name := range cassandra.NewCassandraProcessor(nil).ProcessorMap() {
		m.Declare(name)
	}
	s := &Service{
		schema:      o.Schema,
		current:     o.Current,
		v:           validator{schema: o.Schema, current: o.Current},
		store:       o.Store,
		metrics:     m,
		auth:        o.Auth,
		guard:       o.Guard,
		clusterName: o.Schema.ClusterName,
		nodeAddress: o.NodeAddress,
		nodeToken:   o.NodeToken,
		log:         o.Logger,
	}
	if s.auth == nil {
		s.auth = AllowAll{}
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if c := o.Config; c != nil {
		if c.ClusterName != "" {
			s.clusterName = c.ClusterName
		}
		s.configText = string(c.Text)
		if !engine.LimitsRequestTime(o.Store) {
			// A store that bounds each of its requests itself gets no
			// deadline per call (engine.RequestTimeLimiter).
			s.timeout = time.Duration(c.RpcTimeoutInMillis) * time.Millisecond
		}
	}
	return s
}

// Connection returns the cassandra.Cassandra implementation for one client
// connection. It holds that connection's login state (0.6: login is per
// connection), so each connection needs its own; calls on it are expected
// one at a time, as a Thrift connection makes them.
func (s *Service) Connection() cassandra.Cassandra {
	return &conn{s: s}
}

// ConnectionFrom is Connection for a client at peer (HOST:PORT) of the
// server at host, which the audit log and the failed-login bound name.
func (s *Service) ConnectionFrom(peer, host string) cassandra.Cassandra {
	return &conn{s: s, a: auth.Conn{Peer: peer, Host: host}}
}

// conn is one client connection.
type conn struct {
	s        *Service
	loggedIn atomic.Bool
	// a is the connection's login under a Guard.
	a auth.Conn
}

var _ cassandra.Cassandra = (*conn)(nil)

// checkLoginDone is CassandraServer.checkLoginDone, the first check of
// every data call.
func (c *conn) checkLoginDone() error {
	required := c.s.auth.RequiresLogin() || (c.s.guard != nil && c.s.guard.RequiresLogin())
	if required && !c.loggedIn.Load() {
		return invalid("Login is required before any other API calls")
	}
	return nil
}

// withTimeout bounds a call that reads many rows (range reads, multiget)
// by RpcTimeoutInMillis: the store stops between rows once it runs out.
// Calls on one row finish in far less and are not given a deadline, which
// would only cost a timer per call.
func (s *Service) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.timeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, s.timeout)
}

// required stands in for the generated decoder's required-field check when
// a Go caller passes nil; over the wire such a call never gets here.
func required(name string, missing bool) error {
	if missing {
		return invalid("Required field '%s' was not present!", name)
	}
	return nil
}

// checkWritable refuses writes to the system keyspace (spec 16.11), after
// the call's 0.6 validation has passed.
func (s *Service) checkWritable(keyspace string) error {
	if ks := s.sch().Keyspace(keyspace); ks != nil && ks.System {
		return invalid("Keyspace %s is maintained by the server and may not be written to", keyspace)
	}
	return nil
}
