// Command thriftd serves Cassandra 0.6's Thrift API from an embedded
// LevelDB store, or from a Cassandra cluster (-cassandra). It only wires the packages together: configuration,
// schema, storage engine, Thrift handler and connection server.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/config"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/engine/ldbstore"
	"github.com/thriftd/thriftd/engine/partitioner"
	"github.com/thriftd/thriftd/handler"
	"github.com/thriftd/thriftd/schema"
	"github.com/thriftd/thriftd/server"
)

const simpleAuthenticator = "org.apache.cassandra.auth.SimpleAuthenticator"

// flags are the command line; each overrides the configuration file.
type flags struct {
	config, listen, data         string
	passwd, access, passwdMode   string
	maxMessageMB, maxConnections int
	idleTimeout, requestTimeout  time.Duration
	logLevel, logFormat          string
	pprof                        string
	repair                       bool
	cassandra                    cassandraFlags
}

func parseFlags(args []string) (*flags, error) {
	f := &flags{}
	fs := flag.NewFlagSet("thriftd", flag.ContinueOnError)
	fs.StringVar(&f.config, "config", "storage-conf.xml", "the Cassandra 0.6 storage-conf.xml to serve")
	fs.StringVar(&f.listen, "listen", "", "HOST:PORT for the Thrift port (default: ThriftAddress and ThriftPort from the file)")
	fs.StringVar(&f.data, "data", "", "directory of the LevelDB store (default: the first DataFileDirectory)")
	fs.StringVar(&f.passwd, "passwd", "", "SimpleAuthenticator's passwd.properties (default: beside the configuration file)")
	fs.StringVar(&f.access, "access", "", "SimpleAuthenticator's access.properties (default: beside the configuration file)")
	fs.StringVar(&f.passwdMode, "passwd-mode", "", "SimpleAuthenticator's password mode, PLAIN or MD5 (default PLAIN)")
	fs.IntVar(&f.maxMessageMB, "max-message-mb", 0, "largest request accepted, in MiB (default: ThriftMaxMessageLengthInMB, else 16)")
	fs.IntVar(&f.maxConnections, "max-connections", -1, "most client connections at once, 0 for no limit (default: ThriftMaxConnections, else 4096)")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", -1, "close connections idle this long, 0 for never (default: ThriftIdleTimeoutInSeconds, else never)")
	fs.DurationVar(&f.requestTimeout, "request-timeout", -1, "time a started request has to arrive in full (default: ThriftRequestTimeoutInSeconds, else 30s)")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&f.logFormat, "log-format", "text", "text or json")
	fs.BoolVar(&f.repair, "repair", false, "recover a damaged LevelDB store in the data directory, then exit")
	fs.StringVar(&f.pprof, "pprof", "", "serve Go's runtime profiles on HOST:PORT under /debug/pprof/ (loopback only; default off)")
	f.cassandra.register(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if err := f.cassandra.check(f); err != nil {
		return nil, err
	}
	return f, nil
}

func main() {
	f, err := parseFlags(os.Args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "thriftd:", err)
		os.Exit(2)
	}
	log, err := newLogger(f.logLevel, f.logFormat)
	if err != nil {
		fmt.Fprintln(os.Stderr, "thriftd:", err)
		os.Exit(2)
	}
	if err := run(f, log); err != nil {
		log.Error("thriftd stopped", "err", err)
		os.Exit(1)
	}
}

func newLogger(level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("-log-level: %v", err)
	}
	o := &slog.HandlerOptions{Level: l}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(os.Stderr, o)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(os.Stderr, o)), nil
	}
	return nil, fmt.Errorf("-log-format must be text or json, not %q", format)
}

// settings resolves the configuration file and the flags into what run needs.
func settings(f *flags) (*config.Config, string, string, error) {
	cfg, err := config.Load(f.config)
	if err != nil {
		return nil, "", "", err
	}
	srv := &cfg.Server
	if f.maxMessageMB > 0 {
		srv.MaxMessageSize = int64(f.maxMessageMB) << 20
	}
	if f.maxConnections >= 0 {
		srv.MaxConnections = f.maxConnections
	}
	if f.idleTimeout >= 0 {
		srv.IdleTimeout = f.idleTimeout
	}
	if f.requestTimeout >= 0 {
		srv.RequestTimeout = f.requestTimeout
	}
	dir := filepath.Dir(f.config)
	srv.PasswdFile = firstOf(f.passwd, srv.PasswdFile, filepath.Join(dir, "passwd.properties"))
	srv.AccessFile = firstOf(f.access, srv.AccessFile, filepath.Join(dir, "access.properties"))
	srv.PasswdMode = firstOf(f.passwdMode, srv.PasswdMode, "PLAIN")

	data := f.data
	if data == "" {
		data = cfg.DataFileDirectories[0]
	}
	listen := f.listen
	if listen == "" {
		host := firstOf(cfg.ThriftAddress, cfg.ListenAddress, "localhost")
		listen = net.JoinHostPort(host, strconv.Itoa(cfg.ThriftPort))
	}
	return cfg, data, listen, nil
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func run(f *flags, log *slog.Logger) error {
	cfg, dataDir, listen, err := settings(f)
	if err != nil {
		return err
	}
	if f.repair {
		return repair(dataDir, log)
	}
	if f.cassandra.drop {
		return f.cassandra.dropPrefix(log)
	}
	if f.pprof != "" {
		prof, addr, err := servePprof(f.pprof)
		if err != nil {
			return err
		}
		defer prof.Close()
		log.Info("serving runtime profiles", "addr", addr.String())
	}
	s, err := schema.FromConfig(cfg)
	if err != nil {
		return err
	}
	auth, err := authenticator(cfg)
	if err != nil {
		return err
	}
	for _, w := range cfg.Warnings {
		log.Warn(w, "file", cfg.Path)
	}
	for _, name := range cfg.Ignored {
		log.Info("configuration element is not used by Cassandra 0.6 and is ignored", "element", name, "file", cfg.Path)
	}
	store, where, err := openStore(f, cfg, s, dataDir, log)
	if err != nil {
		return err
	}
	defer func() {
		if err := store.Close(); err != nil {
			log.Error("closing the store", "store", where, "err", err)
		}
	}()

	l, err := net.Listen("tcp", listen)
	if err != nil {
		return fmt.Errorf("cannot listen for Thrift clients on %s: %w", listen, err)
	}
	token := store.Token()
	if cfg.InitialToken != "" {
		if token, err = s.Partitioner.ParseToken(cfg.InitialToken); err != nil {
			return fmt.Errorf("%s: /Storage/InitialToken: %v", cfg.Path, err)
		}
	}
	svc := handler.New(handler.Options{
		Schema:      s,
		Store:       store,
		Config:      cfg,
		Auth:        auth,
		NodeAddress: nodeAddress(l.Addr()),
		NodeToken:   token,
		Logger:      log,
	})
	// The generated processors otherwise start a goroutine and a ticker per
	// request to poll the socket; connections here are watched by the server.
	thrift.ServerConnectivityCheckInterval = 0
	srv := server.New(server.Options{
		MaxMessageSize: cfg.Server.MaxMessageSize,
		MaxConnections: cfg.Server.MaxConnections,
		IdleTimeout:    cfg.Server.IdleTimeout,
		RequestTimeout: cfg.Server.RequestTimeout,
		Logger:         log,
	}, func(net.Conn) thrift.TProcessor { return svc.Processor() })

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sig)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	log.Info("thriftd is serving",
		"listen", l.Addr().String(), "config", cfg.Path, "store", where,
		"cluster", cfg.ClusterName, "partitioner", s.Partitioner.Name(),
		"keyspaces", len(s.Keyspaces), "commit_log_sync", cfg.CommitLogSync,
		"authenticator", cfg.Authenticator)

	select {
	case err := <-served:
		return err
	case got := <-sig:
		log.Info("shutting down: finishing calls in flight", "signal", got.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Server.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		log.Warn("shutdown did not finish cleanly", "err", err)
	}
	<-served
	log.Info("thriftd stopped")
	return nil
}

// store is what run needs of either backend.
type store interface {
	engine.Store
	Token() partitioner.Token
}

// openStore opens the backend the flags select, and says where it stores.
func openStore(f *flags, cfg *config.Config, s *schema.Schema, dataDir string, log *slog.Logger) (store, string, error) {
	if f.cassandra.hosts != "" {
		st, err := f.cassandra.open(cfg, s, log)
		if err != nil {
			return nil, "", err
		}
		return st, "cassandra " + f.cassandra.hosts, nil
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, "", fmt.Errorf("data directory: %w", err)
	}
	st, err := ldbstore.Open(dataDir, s, storeOptions(cfg, log))
	if err != nil {
		return nil, "", err
	}
	return st, dataDir, nil
}

func storeOptions(cfg *config.Config, log *slog.Logger) ldbstore.Options {
	o := ldbstore.Options{
		GCGrace: time.Duration(cfg.GCGraceSeconds) * time.Second,
		Logger:  log,
	}
	if o.GCGrace == 0 {
		o.GCGrace = time.Nanosecond // GCGraceSeconds 0: purge at once
	}
	if cfg.CommitLogSync == "batch" {
		o.Sync = ldbstore.Batch
	} else {
		o.Sync = ldbstore.Periodic
		o.SyncPeriod = time.Duration(cfg.CommitLogSyncPeriodInMS) * time.Millisecond
	}
	return o
}

func authenticator(cfg *config.Config) (handler.Authenticator, error) {
	switch cfg.Authenticator {
	case "", "org.apache.cassandra.auth.AllowAllAuthenticator":
		return nil, nil
	case simpleAuthenticator:
		a, err := config.LoadAuth(cfg.Server.PasswdFile, cfg.Server.AccessFile)
		if err != nil {
			return nil, fmt.Errorf("SimpleAuthenticator: %w", err)
		}
		return handler.NewSimpleAuthenticator(a, cfg.Server.PasswdMode)
	}
	return nil, fmt.Errorf("%s: /Storage/Authenticator: unknown authenticator %s (thriftd has AllowAllAuthenticator and SimpleAuthenticator)", cfg.Path, cfg.Authenticator)
}

// nodeAddress is the address clients should dial, for describe_ring.
func nodeAddress(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || tcp.IP.IsUnspecified() {
		return "127.0.0.1"
	}
	return tcp.IP.String()
}

func repair(dir string, log *slog.Logger) error {
	return ldbstore.Repair(dir, log)
}
