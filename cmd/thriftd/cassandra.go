package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

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
	st, err := cqlstore.Open(ctx, s, cqlstore.Options{Cluster: cl, Prefix: c.KeyspacePrefix, GCGraceSeconds: cfg.GCGraceSeconds, Logger: log, Schema: resolve, Adopt: c.Adopt})
	if err != nil {
		return nil, err
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
