package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/thriftd/thriftd/admin"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/server"
	"github.com/thriftd/thriftd/settings"
)

// newRegistry is the process's one metrics registry: Go runtime and
// process figures, plus the store's own when it exports any. The handler
// and the connection server register theirs when they are built.
func newRegistry(store engine.Store) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if c, ok := store.(prometheus.Collector); ok {
		reg.MustRegister(c)
	}
	return reg
}

// adminAddr resolves -admin and the deprecated -pprof into where the admin
// endpoint listens; "" means off.
func adminAddr(a settings.Admin, log *slog.Logger) string {
	if a.Pprof != "" {
		log.Warn("-pprof is deprecated: the profiles are served by the admin endpoint; use -admin HOST:PORT", "addr", a.Pprof)
		return a.Pprof
	}
	if a.Listen == "off" {
		return ""
	}
	return a.Listen
}

// startAdmin starts the admin endpoint on addr (see package admin), with
// the bearer token of -admin-token-file when given.
func startAdmin(addr string, a settings.Admin, o admin.Options, log *slog.Logger) (*admin.Server, error) {
	if a.TokenFile != "" {
		b, err := os.ReadFile(a.TokenFile)
		if err != nil {
			return nil, fmt.Errorf("-admin-token-file: %w", err)
		}
		o.Token = strings.TrimSpace(string(b))
		if o.Token == "" {
			return nil, fmt.Errorf("-admin-token-file %s is empty", a.TokenFile)
		}
	}
	o.Addr = addr
	o.Logger = log
	srv, err := admin.Listen(o)
	if err != nil {
		return nil, err
	}
	log.Info("admin endpoint is serving", "addr", srv.Addr().String(), "token", o.Token != "")
	if a.Pprof != "" {
		log.Info("serving runtime profiles", "addr", srv.Addr().String())
	}
	return srv, nil
}

// drainer is the admin endpoint's drain: the Thrift server's graceful
// shutdown, bounded by the shutdown timeout, after which calls still
// running are cut off as at SIGTERM.
func drainer(srv *server.Server, timeout time.Duration, log *slog.Logger) func(context.Context) error {
	return func(ctx context.Context) error {
		log.Info("draining: no new Thrift connections; finishing calls in flight")
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			log.Warn("drain: calls still running at the shutdown timeout were cut off", "timeout", timeout, "err", err)
		}
		return nil
	}
}

func stopAdmin(srv *admin.Server, ctx context.Context, log *slog.Logger) {
	if srv == nil {
		return
	}
	if err := srv.Shutdown(ctx); err != nil {
		log.Warn("admin endpoint did not stop cleanly", "err", err)
	}
}

// storeName is where the store keeps its data, for the status page:
// "leveldb DIR" or "cassandra HOSTS", from openStore's log attribute.
func storeName(where slog.Attr) string {
	if where.Key == "data" {
		return "leveldb " + where.Value.String()
	}
	return where.Key + " " + where.Value.String()
}
