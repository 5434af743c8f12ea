// Command thriftd serves Cassandra 0.6's Thrift API from an embedded
// LevelDB store, or from a Cassandra cluster (-cassandra). It only wires
// the packages together: configuration, schema, storage engine, Thrift
// handler, connection server and admin endpoint.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/admin"
	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/config"
	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/dialect"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/cqlstore"
	"github.com/thriftd/thriftd/engine/ldbstore"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/handler"
	"github.com/thriftd/thriftd/handler19"
	"github.com/thriftd/thriftd/marshal"
	"github.com/thriftd/thriftd/rpcmetrics"
	"github.com/thriftd/thriftd/schema"
	"github.com/thriftd/thriftd/schema/catalog"
	"github.com/thriftd/thriftd/server"
	"github.com/thriftd/thriftd/settings"
)

const simpleAuthenticator = "org.apache.cassandra.auth.SimpleAuthenticator"

// command is thriftd's command line: what to do, and the settings flags.
type command struct {
	config      string
	printConfig bool
	repair      bool
	drop        bool
	settings    *settings.Flags
}

func parseFlags(args []string) (*command, error) {
	c := &command{}
	fs := flag.NewFlagSet("thriftd", flag.ContinueOnError)
	fs.StringVar(&c.config, "config", "storage-conf.xml", "the configuration `FILE`: a thriftd.yaml, or the Cassandra 0.6 storage-conf.xml to serve (told apart by content)")
	fs.BoolVar(&c.printConfig, "print-config", false, "print the effective configuration (file and flags) as a thriftd.yaml, then exit")
	fs.BoolVar(&c.repair, "repair", false, "recover a damaged LevelDB store in the data directory, then exit")
	fs.BoolVar(&c.drop, "cassandra-drop", false, "drop every keyspace thriftd created under -cassandra-prefix in the cluster of -cassandra, then exit")
	c.settings = settings.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	return c, nil
}

func main() {
	c, err := parseFlags(os.Args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "thriftd:", err)
		os.Exit(2)
	}
	eff, err := settings.Resolve(c.config, c.settings)
	if err == nil {
		err = checkBackend(c, eff)
	}
	if err != nil {
		// Logged as thriftd would have logged it: by the log flags alone,
		// since the file may be what is wrong.
		s := settings.Defaults()
		c.settings.Apply(&s)
		newLogger(s.Log).Error("thriftd stopped", "err", err)
		os.Exit(1)
	}
	if c.printConfig {
		out, err := eff.YAML()
		if err != nil {
			fmt.Fprintln(os.Stderr, "thriftd:", err)
			os.Exit(1)
		}
		os.Stdout.Write(out)
		return
	}
	log := newLogger(eff.Log)
	switch {
	case c.repair:
		err = ldbstore.Repair(eff.Data, log)
	case c.drop:
		err = dropPrefix(eff.Cassandra, log)
	default:
		err = run(eff, log, func() (*settings.Effective, error) { return settings.Resolve(c.config, c.settings) })
	}
	if err != nil {
		log.Error("thriftd stopped", "err", err)
		os.Exit(1)
	}
}

// newLogger builds the logger of the log settings, which Resolve checked;
// unchecked ones fall back to info and text.
func newLogger(s settings.Log) *slog.Logger {
	var l slog.Level
	l.UnmarshalText([]byte(s.Level))
	o := &slog.HandlerOptions{Level: l}
	if s.Format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, o))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, o))
}

// run serves until a signal; reload resolves the settings again, for
// SIGHUP (nil: no reload).
func run(eff *settings.Effective, log *slog.Logger, reload func() (*settings.Effective, error)) error {
	cfg := eff.Storage
	s, err := schema.FromConfig(cfg)
	if err != nil {
		return err
	}
	authn, err := authenticator(cfg)
	if err != nil {
		return err
	}
	for _, w := range cfg.Warnings {
		log.Warn(w, "file", cfg.Path)
	}
	for _, name := range cfg.Ignored {
		log.Info("configuration element is not used by Cassandra 0.6 and is ignored", "element", name, "file", cfg.Path)
	}
	// The stores are read before the data store opens, so that a bad
	// keystore stops start-up at once.
	secure, err := serverTLS(eff, log)
	if err != nil {
		return err
	}
	store, where, cat, err := openStore(eff, s, log)
	if err != nil {
		return err
	}
	defer func() {
		if cat != nil {
			cat.Close()
		}
		if err := store.Close(); err != nil {
			log.Error("closing the store", where, "err", err)
		}
	}()
	// current is the schema every call reads: the catalog's, which the
	// 19.x API's system_* calls change; the file's on a store that cannot
	// change its schema.
	guard, roles, closeAudit, err := newGuard(eff, store, log)
	if err != nil {
		return err
	}
	defer closeAudit()
	current := func() *schema.Schema { return s }
	var changer handler19.SchemaChanger
	var schemaVersions func(context.Context) (map[string][]string, error)
	if cat != nil {
		current, changer, schemaVersions = cat.Current, cat, cat.SchemaVersions
	}

	listeners, err := listenThrift(eff, secure)
	if err != nil {
		return err
	}
	l := listeners[0].l
	token := store.Token()
	if cfg.InitialToken != "" {
		if token, err = s.Partitioner.ParseToken(cfg.InitialToken); err != nil {
			return fmt.Errorf("%s: /Storage/InitialToken: %v", cfg.Path, err)
		}
	}
	reg := newRegistry(store)
	calls := rpcmetrics.New(reg)
	svc := handler.New(handler.Options{
		Current:     current,
		Store:       store,
		Config:      cfg,
		Auth:        authn,
		Guard:       guardOf(guard),
		NodeAddress: nodeAddress(l.Addr()),
		NodeToken:   token,
		Logger:      log,
		Metrics:     calls,
	})
	opts19 := handler19.Options{
		Schema:         current,
		Store:          store,
		ParseType:      parseType,
		Changer:        changer,
		SchemaVersions: schemaVersions,
		ClusterName:    cfg.ClusterName,
		NodeAddress:    nodeAddress(l.Addr()),
		NodeToken:      token,
		Timeout:        time.Duration(cfg.RpcTimeoutInMillis) * time.Millisecond,
		CQLHosts:       eff.Cassandra.Hosts,
		Guard:          guard19Of(guard),
		Logger:         log,
		Metrics:        calls,
	}
	svc19 := handler19.New(opts19)
	v19, v19From := svc19.Processor, svc19.ProcessorFrom
	// The replay of the migration proxy's durable log writes through a
	// service without a guard: its writes were allowed when made.
	replayOpts := opts19
	replayOpts.Guard, replayOpts.Metrics = nil, nil
	proxy, err := openProxy(eff, func() cassandra19.Cassandra { return handler19.New(replayOpts).Connection() }, reg, log)
	if err != nil {
		return err
	}
	var migration admin.Migration
	if proxy != nil {
		defer proxy.Close()
		migration = proxyAdmin{proxy}
		v19 = func() thrift.TProcessor { return svc19.ProcessorOf(proxy.Wrap(svc19.Connection())) }
		v19From = func(peer, host string) thrift.TProcessor {
			return svc19.ProcessorOf(proxy.Wrap(svc19.ConnectionFrom(peer, host)))
		}
		if reload != nil {
			stopHUP := make(chan struct{})
			defer close(stopHUP)
			reloadOnHUP(proxy, reload, log, stopHUP)
		}
	}
	router := &dialect.Router{
		V06:     svc.Processor,
		V19:     v19,
		V06From: svc.ProcessorFrom,
		V19From: v19From,
		Default: apiDefault(eff.API, cfg.ThriftFramedTransport),
	}
	// The generated processors otherwise start a goroutine and a ticker per
	// request to poll the socket; connections here are watched by the server.
	thrift.ServerConnectivityCheckInterval = 0
	srvOpts := server.Options{
		MaxMessageSize: cfg.Server.MaxMessageSize,
		MaxConnections: cfg.Server.MaxConnections,
		IdleTimeout:    cfg.Server.IdleTimeout,
		RequestTimeout: cfg.Server.RequestTimeout,
		Logger:         log,
		Registerer:     reg,
	}
	srv := server.New(srvOpts, router.NewProcessor)
	stopTarget, err := serveTarget(eff, &dialect.Router{V06: svc.Processor, V19: svc19.Processor, V06From: svc.ProcessorFrom,
		V19From: svc19.ProcessorFrom, Default: router.Default}, srvOpts, log)
	if err != nil {
		return err
	}
	defer stopTarget(context.Background())

	var adm *admin.Server
	if addr := adminAddr(eff.Admin, log); addr != "" {
		adm, err = startAdmin(addr, eff.Admin, admin.Options{
			Registry: reg, Store: store, Schema: s, Current: current,
			Node: admin.Node{Address: nodeAddress(l.Addr()), Token: s.Partitioner.TokenString(token),
				ClusterName: cfg.ClusterName, Partitioner: s.Partitioner.Name(), Started: time.Now(),
				Store: storeName(where)},
			Drain: drainer(srv, cfg.Server.ShutdownTimeout, log),
			Roles: roles, RolesChanged: guard.Forget, Migration: migration,
		}, log)
		if err != nil {
			for _, tl := range listeners {
				tl.l.Close()
			}
			return err
		}
	}
	defer stopAdmin(adm, context.Background(), log)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	served := make(chan error, len(listeners))
	for _, tl := range listeners {
		go func() { served <- serveOn(srv, tl) }()
	}
	log.Info("thriftd is serving", append(listenAttrs(listeners),
		"config", cfg.Path, "settings", eff.File, where,
		"cluster", cfg.ClusterName, "partitioner", s.Partitioner.Name(),
		"keyspaces", len(current().Keyspaces), "schema_version", current().Version, "commit_log_sync", eff.Sync,
		"authenticator", cfg.Authenticator, "authorizer", cmp.Or(cfg.Authorizer, auth.AllowAllAuthorizer))...)

	select {
	case err := <-served:
		if !errors.Is(err, server.ErrServerClosed) {
			// One port failed: stop the others before the store closes.
			ctx, cancel := context.WithTimeout(context.Background(), cfg.Server.ShutdownTimeout)
			defer cancel()
			srv.Shutdown(ctx)
			return err
		}
		// Drained from the admin endpoint: the store stays open for it.
		log.Info("drained: no longer serving Thrift clients; waiting for SIGINT or SIGTERM")
		log.Info("thriftd stopped", "signal", (<-sig).String())
		return nil
	case got := <-sig:
		log.Info("shutting down: finishing calls in flight", "signal", got.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Server.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		log.Warn("shutdown did not finish cleanly", "err", err)
	}
	for range listeners {
		<-served
	}
	log.Info("thriftd stopped")
	return nil
}

// store is what run needs of either backend.
type store interface {
	engine.Store
	Token() dht.Token
}

// parseType resolves the 19.x API's type names: Cassandra 1.2's types.
var parseType = marshal.Parse

// schemaPoll is how often a catalog on a shared store (the Cassandra
// cluster) reads the recorded schema for other processes' changes.
const schemaPoll = 2 * time.Second

// openStore opens the backend the settings select, with the schema
// catalog over it when the store can change its schema (nil otherwise),
// and says where it stores, for the logs: the Cassandra cluster of
// -cassandra (cassandra=HOSTS), else the LevelDB store (data=DIR).
func openStore(eff *settings.Effective, s *schema.Schema, log *slog.Logger) (store, slog.Attr, *catalog.Catalog, error) {
	catOpts := catalog.Options{ParseType: parseType, File: eff.Storage.Path, Logger: log}
	if c := eff.Cassandra; len(c.Hosts) > 0 {
		catOpts.Poll = schemaPoll
		var start *catalog.Start
		// The store serves the schema the catalog resolves from what the
		// cluster records, as the LevelDB store does.
		st, err := openCassandra(c, eff.Storage, s, log, func(recorded []byte) (*schema.Schema, error) {
			var err error
			if start, err = catalog.Resolve(s, recorded, catOpts); err != nil {
				return nil, err
			}
			return start.Schema, nil
		})
		if err != nil {
			return nil, slog.Attr{}, nil, err
		}
		catOpts.Adopted = st.Adopted()
		where := slog.String("cassandra", strings.Join(c.Hosts, ","))
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		cat, err := catalog.New(ctx, st, start, catOpts)
		for i := 0; errors.Is(err, cqlstore.ErrSchemaChanged) && i < 5; i++ {
			// Another thriftd recorded its schema first (both started at
			// once): resolve the file against its record and serve that.
			log.Info("another thriftd recorded the schema first; reading it", "err", err)
			var rec []byte
			if rec, err = st.StoredSchema(ctx); err != nil {
				break
			}
			if start, err = catalog.Resolve(s, rec, catOpts); err != nil {
				break
			}
			if err = st.FollowSchema(ctx, start.Schema); err != nil {
				break
			}
			cat, err = catalog.New(ctx, st, start, catOpts)
		}
		if err != nil {
			st.Close()
			return nil, slog.Attr{}, nil, err
		}
		return st, where, cat, nil
	}
	if err := os.MkdirAll(eff.Data, 0o755); err != nil {
		return nil, slog.Attr{}, nil, fmt.Errorf("data directory: %w", err)
	}
	o := storeOptions(eff, log)
	var start *catalog.Start
	o.Schema = func(recorded []byte) (*schema.Schema, error) {
		var err error
		if start, err = catalog.Resolve(s, recorded, catOpts); err != nil {
			return nil, err
		}
		return start.Schema, nil
	}
	o.NodeAddress = listenAddress(eff.Listen)
	st, err := ldbstore.Open(eff.Data, s, o)
	if err != nil {
		return nil, slog.Attr{}, nil, err
	}
	cat, err := catalog.New(context.Background(), st, start, catOpts)
	if err != nil {
		st.Close()
		return nil, slog.Attr{}, nil, err
	}
	return st, slog.String("data", eff.Data), cat, nil
}

// listenAddress is the address clients dial for a listen setting, as
// nodeAddress gives it for the bound socket.
func listenAddress(listen string) string {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return "127.0.0.1"
	}
	a, err := net.ResolveTCPAddr("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "127.0.0.1"
	}
	return nodeAddress(a)
}

func storeOptions(eff *settings.Effective, log *slog.Logger) ldbstore.Options {
	o := ldbstore.Options{
		GCGrace: time.Duration(eff.Storage.GCGraceSeconds) * time.Second,
		Logger:  log,
	}
	if o.GCGrace == 0 {
		o.GCGrace = time.Nanosecond // GCGraceSeconds 0: purge at once
	}
	if eff.Sync == "batch" {
		o.Sync = ldbstore.Batch
	} else {
		o.Sync = ldbstore.Periodic
		o.SyncPeriod = eff.SyncPeriod
	}
	return o
}

func authenticator(cfg *config.Config) (handler.Authenticator, error) {
	switch cfg.Authenticator {
	case "", auth.AllowAllAuthenticator, auth.PasswordAuthenticator:
		// PasswordAuthenticator is the Guard's (newGuard).
		return nil, nil
	case simpleAuthenticator:
		a, err := config.LoadAuth(cfg.Server.PasswdFile, cfg.Server.AccessFile)
		if err != nil {
			return nil, fmt.Errorf("SimpleAuthenticator: %w", err)
		}
		return handler.NewSimpleAuthenticator(a, cfg.Server.PasswdMode)
	}
	return nil, fmt.Errorf("%s: /Storage/Authenticator: unknown authenticator %s (thriftd has AllowAllAuthenticator, SimpleAuthenticator and PasswordAuthenticator)", cfg.Path, cfg.Authenticator)
}

// newGuard builds PasswordAuthenticator and CassandraAuthorizer over the
// store's roles: the cluster's system_auth on the Cassandra store, the
// store's own record on the LevelDB one (returned, for the admin
// endpoint's commands). It returns a nil Guard under the other
// authenticators; closeAudit closes the audit log.
func newGuard(eff *settings.Effective, st store, log *slog.Logger) (g *auth.Guard, roles *auth.Local, closeAudit func(), err error) {
	closeAudit = func() {}
	cfg := eff.Storage
	if cfg.Authenticator != auth.PasswordAuthenticator {
		if cfg.Authorizer == auth.CassandraAuthorizer {
			return nil, nil, closeAudit, fmt.Errorf("CassandraAuthorizer needs PasswordAuthenticator, not %s", cfg.Authenticator)
		}
		return nil, nil, closeAudit, nil
	}
	var src auth.Source
	switch s := st.(type) {
	case *cqlstore.Store:
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		err := checkClusterAuthorizer(ctx, eff, s, log)
		cancel()
		if err != nil {
			return nil, nil, closeAudit, err
		}
		src = s.Roles()
	case *ldbstore.Store:
		if roles, err = auth.OpenLocal(s.Auth()); err != nil {
			return nil, nil, closeAudit, err
		}
		src = roles
	default:
		return nil, nil, closeAudit, fmt.Errorf("PasswordAuthenticator: the store keeps no roles")
	}
	validity := func(ms int) time.Duration {
		if ms == 0 {
			return -1 // no cache
		}
		return time.Duration(ms) * time.Millisecond
	}
	a := eff.Auth
	o := auth.Options{
		Source:              src,
		Passwords:           true,
		Permissions:         cfg.Authorizer == auth.CassandraAuthorizer,
		RolesValidity:       validity(a.RolesValidityInMS),
		PermissionsValidity: validity(a.PermissionsValidityInMS),
		CredentialsValidity: validity(a.CredentialsValidityInMS),
		Limit:               auth.Limit{Max: a.MaxFailedLogins, Window: a.FailedLoginWindow},
		Logger:              log,
	}
	if a.AuditLog != "" {
		f, err := os.OpenFile(a.AuditLog, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return nil, nil, closeAudit, fmt.Errorf("audit log: %w", err)
		}
		o.Audit = auth.NewAudit(f, nil)
		closeAudit = func() { f.Close() }
	}
	if g, err = auth.New(o); err != nil {
		closeAudit()
		return nil, nil, func() {}, err
	}
	return g, roles, closeAudit, nil
}

// guardOf and guard19Of hand the services a Guard, or no interface value
// at all when there is none.
func guardOf(g *auth.Guard) handler.Guard {
	if g == nil {
		return nil
	}
	return g
}

func guard19Of(g *auth.Guard) handler19.Guard {
	if g == nil {
		return nil
	}
	return g
}

// apiDefault is the dialect of a fresh connection's ambiguous calls: the
// api setting, and storage-conf.xml's ThriftFramedTransport under auto.
func apiDefault(api string, framedTransport bool) dialect.Default {
	d, _ := dialect.Parse(api) // auto is not a dialect: Unknown
	return dialect.Default{Fixed: d, FramedV06: framedTransport}
}

// nodeAddress is the address clients should dial, for describe_ring.
func nodeAddress(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || tcp.IP.IsUnspecified() {
		return "127.0.0.1"
	}
	return tcp.IP.String()
}
