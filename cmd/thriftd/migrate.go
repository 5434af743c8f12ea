package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/thriftd/thriftd/dialect"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/migrate"
	"github.com/thriftd/thriftd/server"
	"github.com/thriftd/thriftd/settings"
)

// openProxy builds the migration proxy of eff.Migration (nil when no
// origin is set); replay is a 19.x connection that needs no login.
func openProxy(eff *settings.Effective, replay func() cassandra19.Cassandra, reg prometheus.Registerer, log *slog.Logger) (*migrate.Proxy, error) {
	m := eff.Migration
	if m.Origin == "" {
		return nil, nil
	}
	reads, err := migrate.ParseReads(m.Reads)
	if err != nil {
		return nil, err
	}
	writes, err := migrate.ParseWrites(m.Writes)
	if err != nil {
		return nil, err
	}
	origin := migrate.Origin{Addr: m.Origin, Username: m.OriginUsername, Timeout: m.OriginTimeout}
	if m.OriginPassword != "" {
		b, err := os.ReadFile(m.OriginPassword)
		if err != nil {
			return nil, fmt.Errorf("migration.origin_password_file: %w", err)
		}
		origin.Password, _, _ = strings.Cut(string(b), "\n")
		origin.Password = strings.TrimRight(origin.Password, "\r")
	}
	if m.OriginTLSCA != "" {
		pem, err := os.ReadFile(m.OriginTLSCA)
		if err != nil {
			return nil, fmt.Errorf("migration.origin_tls_ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("migration.origin_tls_ca: %s holds no PEM certificate", m.OriginTLSCA)
		}
		origin.TLS = &tls.Config{RootCAs: pool, ServerName: m.OriginServerName, MinVersion: tls.VersionTLS12}
	}
	logPath := m.PendingLog
	if logPath == "" {
		logPath = filepath.Join(eff.Data, "migration-pending.log")
	}
	return migrate.New(migrate.Options{
		Origin: origin, Reads: reads, Writes: writes,
		Replay: replay, LogPath: logPath, Registerer: reg, Logger: log,
	})
}

// proxyAdmin is the admin endpoint's view of the proxy.
type proxyAdmin struct{ p *migrate.Proxy }

func (a proxyAdmin) Status() any { return a.p.Status() }

func (a proxyAdmin) Set(reads, writes string) (any, error) {
	r, w := a.p.Modes()
	var err error
	if reads != "" {
		if r, err = migrate.ParseReads(reads); err != nil {
			return nil, err
		}
	}
	if writes != "" {
		if w, err = migrate.ParseWrites(writes); err != nil {
			return nil, err
		}
	}
	if err := a.p.SetModes(r, w); err != nil {
		return nil, err
	}
	return a.p.Status(), nil
}

// reloadOnHUP applies thriftd.yaml's migration.reads and migration.writes
// at each SIGHUP (flags still win over the file), until stop is closed.
func reloadOnHUP(p *migrate.Proxy, reload func() (*settings.Effective, error), log *slog.Logger, stop <-chan struct{}) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	go func() {
		defer signal.Stop(hup)
		for {
			select {
			case <-stop:
				return
			case <-hup:
			}
			eff, err := reload()
			if err != nil {
				log.Error("SIGHUP: the configuration was not reloaded; the migration settings are unchanged", "err", err)
				continue
			}
			if _, err := (proxyAdmin{p}).Set(eff.Migration.Reads, eff.Migration.Writes); err != nil {
				log.Error("SIGHUP: the migration settings were refused; unchanged", "err", err)
				continue
			}
			r, w := p.Modes()
			log.Info("SIGHUP: migration settings applied", "reads", r.String(), "writes", w.String())
		}
	}()
}

// serveTarget serves r (thriftd's store alone) on migration.target_listen
// when set; stop shuts that port down.
func serveTarget(eff *settings.Effective, r *dialect.Router, o server.Options, log *slog.Logger) (stop func(context.Context), err error) {
	addr := eff.Migration.TargetListen
	if addr == "" || eff.Migration.Origin == "" {
		return func(context.Context) {}, nil
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("migration.target_listen: cannot listen on %s: %w", addr, err)
	}
	o.Registerer = nil // the main port's figures are the process's
	srv := server.New(o, r.NewProcessor)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(l); err != nil && !errors.Is(err, server.ErrServerClosed) {
			log.Error("the migration target port stopped", "addr", l.Addr().String(), "err", err)
		}
	}()
	log.Info("migration target port is serving thriftd's store alone, for copy and verify", "target_listen", l.Addr().String())
	return func(ctx context.Context) {
		srv.Shutdown(ctx)
		<-done
	}, nil
}
