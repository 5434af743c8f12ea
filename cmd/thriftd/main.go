// Command thriftd serves Cassandra 0.6's Thrift API from an embedded
// LevelDB store. It only wires the packages together: configuration,
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
	"syscall"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/config"
	"github.com/thriftd/thriftd/engine/ldbstore"
	"github.com/thriftd/thriftd/handler"
	"github.com/thriftd/thriftd/schema"
	"github.com/thriftd/thriftd/server"
	"github.com/thriftd/thriftd/settings"
)

const simpleAuthenticator = "org.apache.cassandra.auth.SimpleAuthenticator"

// command is thriftd's command line: what to do, and the settings flags.
type command struct {
	config      string
	printConfig bool
	repair      bool
	settings    *settings.Flags
}

func parseFlags(args []string) (*command, error) {
	c := &command{}
	fs := flag.NewFlagSet("thriftd", flag.ContinueOnError)
	fs.StringVar(&c.config, "config", "storage-conf.xml", "the configuration `FILE`: a thriftd.yaml, or the Cassandra 0.6 storage-conf.xml to serve (told apart by content)")
	fs.BoolVar(&c.printConfig, "print-config", false, "print the effective configuration (file and flags) as a thriftd.yaml, then exit")
	fs.BoolVar(&c.repair, "repair", false, "recover a damaged LevelDB store in the data directory, then exit")
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
		err = served(eff)
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
	if c.repair {
		err = ldbstore.Repair(eff.Data, log)
	} else {
		err = run(eff, log)
	}
	if err != nil {
		log.Error("thriftd stopped", "err", err)
		os.Exit(1)
	}
}

// served refuses settings that this thriftd declares but does not act on,
// rather than ignoring them: the Cassandra backend and the admin endpoint.
func served(eff *settings.Effective) error {
	if len(eff.Cassandra.Hosts) > 0 {
		return fmt.Errorf("%s: cassandra.hosts: this thriftd serves the embedded LevelDB store only", eff.Origin("cassandra.hosts"))
	}
	if l := eff.Admin.Listen; l != "off" && l != settings.Defaults().Admin.Listen {
		return fmt.Errorf("%s: admin.listen: this thriftd has no admin endpoint (use -admin off, or -pprof for profiles)", eff.Origin("admin.listen"))
	}
	if eff.Admin.TokenFile != "" {
		return fmt.Errorf("%s: admin.token_file: this thriftd has no admin endpoint", eff.Origin("admin.token_file"))
	}
	return nil
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

func run(eff *settings.Effective, log *slog.Logger) error {
	cfg, dataDir := eff.Storage, eff.Data
	if eff.Admin.Pprof != "" {
		prof, addr, err := servePprof(eff.Admin.Pprof)
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
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	store, err := ldbstore.Open(dataDir, s, storeOptions(eff, log))
	if err != nil {
		return err
	}
	defer func() {
		if err := store.Close(); err != nil {
			log.Error("closing the store", "dir", dataDir, "err", err)
		}
	}()

	l, err := net.Listen("tcp", eff.Listen)
	if err != nil {
		return fmt.Errorf("cannot listen for Thrift clients on %s: %w", eff.Listen, err)
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
		"listen", l.Addr().String(), "config", cfg.Path, "settings", eff.File, "data", dataDir,
		"cluster", cfg.ClusterName, "partitioner", s.Partitioner.Name(),
		"keyspaces", len(s.Keyspaces), "commit_log_sync", eff.Sync,
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
