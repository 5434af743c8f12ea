package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/thriftd/thriftd/config"
	"github.com/thriftd/thriftd/engine/cqlstore"
	"github.com/thriftd/thriftd/schema"
	"github.com/thriftd/thriftd/settings"
)

// checkBackend refuses combinations of the command line and the settings
// that cannot work with the backend they select, before anything starts.
// The Cassandra settings themselves were checked by settings.Validate.
func checkBackend(c *command, eff *settings.Effective) error {
	if len(eff.Cassandra.Hosts) == 0 {
		if c.drop {
			return errors.New("-cassandra-drop needs -cassandra")
		}
		return nil
	}
	if c.repair {
		return errors.New("-repair recovers a LevelDB store; it cannot be combined with -cassandra")
	}
	if o := eff.Origin("data"); o.Layer == settings.CommandLine || o.Layer == settings.YAMLFile {
		return fmt.Errorf("%s: data is the LevelDB store's directory; it cannot be combined with -cassandra", o)
	}
	if c.drop && eff.Cassandra.KeyspacePrefix == "" {
		return errors.New("-cassandra-drop needs -cassandra-prefix (it drops only the keyspaces of one prefix)")
	}
	return nil
}

// cluster resolves the Cassandra settings into how to reach the cluster.
func cluster(c settings.Cassandra) (cqlstore.Cluster, error) {
	cl := cqlstore.Cluster{
		Hosts: c.Hosts, Username: c.Username, TLSCA: c.TLSCA, TLSCert: c.TLSCert, TLSKey: c.TLSKey,
		TLSServerName: c.TLSServerName, LocalDC: c.LocalDC, Timeout: c.Timeout,
	}
	if c.PasswordFile != "" {
		raw, err := os.ReadFile(c.PasswordFile)
		if err != nil {
			return cl, fmt.Errorf("-cassandra-password-file: %w", err)
		}
		cl.Password, _, _ = strings.Cut(string(raw), "\n")
		cl.Password = strings.TrimRight(cl.Password, "\r")
	}
	if c.Username != "" && c.PasswordFile == "" {
		return cl, errors.New("-cassandra-username needs -cassandra-password-file")
	}
	return cl, nil
}

// startTimeout bounds connecting and creating the schema at start.
const startTimeout = 5 * time.Minute

// loginRetry is how long start-up waits before logging in again after
// the cluster refused its credentials.
const loginRetry = 2 * time.Second

// loginRefused reports the cluster refusing thriftd's user and password
// (Cassandra's "Provided username NAME and/or password are incorrect",
// the native protocol's credentials error).
func loginRefused(err error) bool {
	var cred *gocql.RequestErrCredentials
	return errors.As(err, &cred) || strings.Contains(err.Error(), "and/or password are incorrect")
}

// openCassandra opens the Cassandra store for s, serving instead the
// schema resolve returns from the one the cluster records.
func openCassandra(c settings.Cassandra, cfg *config.Config, s *schema.Schema, log *slog.Logger, resolve func([]byte) (*schema.Schema, error)) (*cqlstore.Store, error) {
	cl, err := cluster(c)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	start := time.Now()
	var st *cqlstore.Store
	for attempt := 1; ; attempt++ {
		st, err = cqlstore.Open(ctx, s, cqlstore.Options{Cluster: cl, Prefix: c.KeyspacePrefix, GCGraceSeconds: cfg.GCGraceSeconds, Logger: log, Schema: resolve, Adopt: c.Adopt})
		if err == nil {
			break
		}
		if !loginRefused(err) {
			return nil, err
		}
		// A fresh node with PasswordAuthenticator opens its CQL port some
		// seconds before it creates its default superuser, and services
		// are not always started in order: wait it out, within the
		// start-up bound.
		log.Warn("the Cassandra cluster refused thriftd's login; a node that has just started may not have made its roles yet: trying again",
			"cassandra", strings.Join(c.Hosts, ","), "user", c.Username, "attempt", attempt, "waited", time.Since(start).Round(time.Second).String(), "err", err)
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w (still refused after %s)", err, time.Since(start).Round(time.Second))
		case <-time.After(loginRetry):
		}
	}
	log.Info("Cassandra schema ready", "hosts", strings.Join(c.Hosts, ","), "prefix", c.KeyspacePrefix, "took", time.Since(start).Round(time.Millisecond).String())
	return st, nil
}

// dropPrefix is -cassandra-drop: it drops every keyspace of the prefix.
func dropPrefix(c settings.Cassandra, log *slog.Logger) error {
	cl, err := cluster(c)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	dropped, err := cqlstore.DropPrefix(ctx, cl, c.KeyspacePrefix)
	if err != nil {
		return err
	}
	log.Info("dropped the keyspaces of the prefix", "prefix", c.KeyspacePrefix, "keyspaces", strings.Join(dropped, ","))
	return nil
}
