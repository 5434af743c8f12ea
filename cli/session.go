// Package cli is thriftd-cli's shell: it parses cassandra-cli 0.6's
// commands, runs them over Cassandra 0.6's Thrift API (against thriftd or
// any 0.6 server) and prints 0.6's output lines. cmd/thriftd-cli only
// wires flags and the terminal to it.
package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/marshal"
)

// Config is what a Session needs to connect, with its defaults.
type Config struct {
	// Host and Port are where to connect first (default 127.0.0.1/9160);
	// a connect statement changes them.
	Host string
	Port int
	// Framed selects the framed transport; thriftd accepts either.
	Framed bool
	// Keyspace is the default keyspace for paths that name none.
	Keyspace string
	// Username and Password, when Username is set, log in to Keyspace on
	// every connection (SimpleAuthenticator).
	Username, Password string
	// Timeout bounds connecting and each call (default 30s).
	Timeout time.Duration
	// PageSize is how many columns one get_slice call asks for while a
	// get pages through a row (default 1000).
	PageSize int
	// TLS, when set, makes every connection speak TLS with this
	// configuration (a server's TLS port, docs/security.md).
	TLS *tls.Config
}

// ErrQuit is returned by Exec for quit and exit.
var ErrQuit = errors.New("quit")

// Session is one shell's connection and what it knows of the schema. Its
// methods may be called from more than one goroutine (the line editor
// asks for completions); they take turns.
type Session struct {
	mu       sync.Mutex
	cfg      Config
	host     string
	port     int
	keyspace string
	out      Printer
	now      func() time.Time

	conn      *conn
	keyspaces []string                      // cached keyspace names
	schema    map[string]map[string]*cfMeta // cached describe_keyspace results
}

type conn struct {
	client *cassandra.CassandraClient
	trans  thrift.TTransport
}

// cfMeta is what the shell needs of a column family.
type cfMeta struct {
	info  ColumnFamilyInfo
	super bool
	cmp   marshal.Comparator // names (of super columns, for a Super CF)
	sub   marshal.Comparator // sub-column names of a Super CF
}

// NewSession returns a session that prints to out. It connects lazily:
// the first statement that needs the server dials cfg.Host and cfg.Port.
func NewSession(cfg Config, out Printer) *Session {
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.Port == 0 {
		cfg.Port = 9160
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.PageSize <= 0 {
		cfg.PageSize = 1000
	}
	return &Session{cfg: cfg, host: cfg.Host, port: cfg.Port, keyspace: cfg.Keyspace, out: out, now: time.Now}
}

// Close closes the connection, if any.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.disconnect()
}

// Address is the host and port the session talks to, as host/port.
func (s *Session) Address() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("%s/%d", s.host, s.port)
}

// Keyspace is the default keyspace ("" if none).
func (s *Session) Keyspace() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keyspace
}

// Connected reports whether a connection is open.
func (s *Session) Connected() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn != nil
}

// Connect opens a connection to the configured address now and reports
// it through the printer, as the interactive shell does on start.
func (s *Session) Connect(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.connectAndReport(ctx)
}

func (s *Session) connectAndReport(ctx context.Context) error {
	if err := s.dial(ctx); err != nil {
		return err
	}
	name, err := s.conn.client.DescribeClusterName(ctx)
	if err != nil {
		return s.callErr(err)
	}
	s.out.Connected(name, s.host, s.port)
	return nil
}

func (s *Session) disconnect() {
	if s.conn != nil {
		s.conn.trans.Close()
		s.conn = nil
	}
	s.keyspaces, s.schema = nil, nil
}

// dial opens a connection to s.host/s.port and logs in if the session
// has credentials.
func (s *Session) dial(ctx context.Context) error {
	s.disconnect()
	addr := net.JoinHostPort(s.host, strconv.Itoa(s.port))
	cfg := &thrift.TConfiguration{ConnectTimeout: s.cfg.Timeout, SocketTimeout: s.cfg.Timeout}
	var trans thrift.TTransport = thrift.NewTSocketConf(addr, cfg)
	if s.cfg.TLS != nil {
		cfg.TLSConfig = s.cfg.TLS
		trans = thrift.NewTSSLSocketConf(addr, cfg)
	}
	if s.cfg.Framed {
		trans = thrift.NewTFramedTransportConf(trans, cfg)
	} else {
		trans = thrift.NewTBufferedTransport(trans, 8192)
	}
	if err := trans.Open(); err != nil {
		return fmt.Errorf("cannot connect to %s/%d: %s", s.host, s.port, netReason(err))
	}
	s.conn = &conn{client: cassandra.NewCassandraClientFactory(trans, thrift.NewTBinaryProtocolFactoryConf(cfg)), trans: trans}
	if err := s.login(ctx); err != nil {
		// Without the login every data call would fail; the next
		// statement dials and tries again.
		s.disconnect()
		return err
	}
	return nil
}

func (s *Session) login(ctx context.Context) error {
	if s.cfg.Username == "" {
		return nil
	}
	if s.keyspace == "" {
		return errors.New("logging in needs a keyspace: give --keyspace with --username")
	}
	req := &cassandra.AuthenticationRequest{Credentials: map[string]string{"username": s.cfg.Username, "password": s.cfg.Password}}
	if err := s.conn.client.Login(ctx, s.keyspace, req); err != nil {
		return s.callErr(err)
	}
	return nil
}

// client returns the open connection's client, connecting first if
// there is none (at start, or after a lost connection).
func (s *Session) client(ctx context.Context) (*cassandra.CassandraClient, error) {
	if s.conn == nil {
		if err := s.dial(ctx); err != nil {
			return nil, err
		}
	}
	return s.conn.client, nil
}

// netReason is the part of a dial error worth showing: "connection
// refused" rather than the whole chain.
func netReason(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return strings.TrimPrefix(op.Err.Error(), "connect: ")
	}
	return err.Error()
}

// callErr turns what a Thrift call returned into one clear line. A
// transport or protocol failure closes the connection: the next
// statement reconnects.
func (s *Session) callErr(err error) error {
	var (
		ire   *cassandra.InvalidRequestException
		nfe   *cassandra.NotFoundException
		ue    *cassandra.UnavailableException
		te    *cassandra.TimedOutException
		authn *cassandra.AuthenticationException
		authz *cassandra.AuthorizationException
		app   thrift.TApplicationException
	)
	switch {
	case errors.As(err, &ire):
		return fmt.Errorf("Invalid request: %s", ire.Why)
	case errors.As(err, &nfe):
		return errors.New("Not found.")
	case errors.As(err, &ue):
		return errors.New("Unavailable: not enough replicas are alive for the consistency level.")
	case errors.As(err, &te):
		return errors.New("Timed out: the server did not answer in time.")
	case errors.As(err, &authn):
		return fmt.Errorf("Authentication failed: %s", authn.Why)
	case errors.As(err, &authz):
		return fmt.Errorf("Not authorized: %s", authz.Why)
	case errors.As(err, &app):
		return fmt.Errorf("Server error: %s", app.Error())
	}
	addr := fmt.Sprintf("%s/%d", s.host, s.port)
	s.disconnect()
	return fmt.Errorf("lost the connection to %s: %s (the next command reconnects)", addr, netReason(err))
}

// Exec runs one statement and prints its result. It returns ErrQuit for
// quit, or the statement's error as one line (already clear to a user;
// the caller prints it).
func (s *Session) Exec(ctx context.Context, st Statement) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch st := st.(type) {
	case Help:
		s.out.Help()
		return nil
	case Quit:
		return ErrQuit
	case Connect:
		s.host, s.port = st.Host, st.Port
		return s.connectAndReport(ctx)
	case Use:
		return s.use(ctx, st.Keyspace)
	case Show:
		return s.show(ctx, st)
	case Describe:
		return s.describe(ctx, st)
	case Get:
		return s.get(ctx, st)
	case Set:
		return s.set(ctx, st)
	case Del:
		return s.del(ctx, st)
	case Count:
		return s.count(ctx, st)
	}
	return fmt.Errorf("unknown statement %T", st)
}

func (s *Session) use(ctx context.Context, ks string) error {
	if _, err := s.meta(ctx, ks); err != nil {
		return err
	}
	old := s.keyspace
	s.keyspace = ks
	if s.cfg.Username != "" {
		if err := s.login(ctx); err != nil {
			s.keyspace = old
			return err
		}
	}
	return nil
}

func (s *Session) show(ctx context.Context, st Show) error {
	c, err := s.client(ctx)
	if err != nil {
		return err
	}
	if st.What == ShowKeyspaces {
		ks, err := c.GetStringListProperty(ctx, "keyspaces")
		if err != nil {
			return s.callErr(err)
		}
		s.keyspaces = ks
		s.out.Keyspaces(ks)
		return nil
	}
	prop := map[string]string{ShowClusterName: "cluster name", ShowAPIVersion: "version", ShowConfigFile: "config file"}[st.What]
	v, err := c.GetStringProperty(ctx, prop)
	if err != nil {
		return s.callErr(err)
	}
	s.out.Property(strings.ReplaceAll(st.What, " ", "_"), strings.TrimSuffix(v, "\n"))
	return nil
}

func (s *Session) describe(ctx context.Context, st Describe) error {
	ks := st.Keyspace
	if ks == "" {
		ks = s.keyspace
	}
	if ks == "" {
		return errors.New("describe keyspace needs a keyspace name (or 'use <keyspace>' first)")
	}
	m, err := s.meta(ctx, ks)
	if err != nil {
		return err
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	cfs := make([]ColumnFamilyInfo, 0, len(names))
	for _, n := range names {
		cfs = append(cfs, m[n].info)
	}
	s.out.Describe(ks, cfs)
	return nil
}

// meta returns the column families of ks, asking the server once per
// connection.
func (s *Session) meta(ctx context.Context, ks string) (map[string]*cfMeta, error) {
	if m, ok := s.schema[ks]; ok {
		return m, nil
	}
	c, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	d, err := c.DescribeKeyspace(ctx, ks)
	if err != nil {
		var nfe *cassandra.NotFoundException
		var app thrift.TApplicationException
		if errors.As(err, &nfe) || (errors.As(err, &app) && app.TypeId() == thrift.INTERNAL_ERROR) {
			// 0.6 itself answers an unknown keyspace with an internal error.
			return nil, unknownKeyspaceError(ks)
		}
		return nil, s.callErr(err)
	}
	m := make(map[string]*cfMeta, len(d))
	for name, props := range d {
		m[name] = newCFMeta(ks, name, props)
	}
	if s.schema == nil {
		s.schema = map[string]map[string]*cfMeta{}
	}
	s.schema[ks] = m
	return m, nil
}

// unknownKeyspaceError is describe_keyspace's answer for a keyspace the
// server does not have; its text is 0.6's describe keyspace line.
type unknownKeyspaceError string

func (e unknownKeyspaceError) Error() string {
	return fmt.Sprintf("Keyspace %s could not be found.", string(e))
}

// newCFMeta reads one column family of describe_keyspace. An unknown
// comparator class is read as BytesType, as 0.6's cli did.
func newCFMeta(ks, name string, props map[string]string) *cfMeta {
	m := &cfMeta{info: ColumnFamilyInfo{Name: name, Type: props["Type"], CompareWith: props["CompareWith"]}}
	m.super = props["Type"] == "Super"
	m.cmp = lookup(props["CompareWith"])
	if m.super {
		m.info.CompareSubcolumnsWith = props["CompareSubcolumnsWith"]
		m.sub = lookup(props["CompareSubcolumnsWith"])
	}
	// Without a comment, Desc is the generated "<ks>.<cf>\nColumn Family
	// Type: ..." text, which repeats what is shown already.
	if desc := props["Desc"]; desc != "" && !strings.HasPrefix(desc, ks+"."+name+"\n") {
		m.info.Comment = desc
	}
	return m
}

func lookup(class string) marshal.Comparator {
	if c, err := marshal.Lookup(class); err == nil {
		return c
	}
	return marshal.BytesType{}
}

// Keyspaces returns the server's keyspace names, for completion; nil
// without an open connection (completing never dials: a tab press must
// not wait on an unreachable server).
func (s *Session) Keyspaces(ctx context.Context) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keyspaces == nil {
		if s.conn == nil {
			return nil
		}
		ks, err := s.conn.client.GetStringListProperty(ctx, "keyspaces")
		if err != nil {
			s.callErr(err)
			return nil
		}
		s.keyspaces = ks
	}
	return slices.Clone(s.keyspaces)
}

// ColumnFamilies returns the column family names of ks ("" for the
// default keyspace), for completion; nil if unknown or without an open
// connection.
func (s *Session) ColumnFamilies(ctx context.Context, ks string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ks == "" {
		ks = s.keyspace
	}
	if _, cached := s.schema[ks]; ks == "" || (!cached && s.conn == nil) {
		return nil
	}
	m, err := s.meta(ctx, ks)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
