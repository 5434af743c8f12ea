package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/thriftd/thriftd/config"
	"github.com/thriftd/thriftd/engine/cqlstore"
	"github.com/thriftd/thriftd/schema"
)

// cassandraFlags select and configure the Cassandra backend
// (docs/cassandra.md). Without -cassandra, thriftd stores into LevelDB.
type cassandraFlags struct {
	hosts, prefix, username, passwordFile string
	tlsCA, tlsCert, tlsKey, tlsServerName string
	dc                                    string
	timeout                               time.Duration
	drop                                  bool
}

func (c *cassandraFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.hosts, "cassandra", "", "store into the Cassandra cluster at HOST:PORT[,HOST:PORT...] instead of LevelDB")
	fs.StringVar(&c.prefix, "cassandra-prefix", "", "prefix of every CQL keyspace name (letters, digits, underscores)")
	fs.StringVar(&c.username, "cassandra-username", "", "log in to the cluster as this user (PasswordAuthenticator)")
	fs.StringVar(&c.passwordFile, "cassandra-password-file", "", "file whose first line is the cluster password")
	fs.StringVar(&c.tlsCA, "cassandra-tls-ca", "", "PEM file of the CA certificates that sign the nodes' (enables TLS)")
	fs.StringVar(&c.tlsCert, "cassandra-tls-cert", "", "PEM client certificate, for nodes that require one (enables TLS)")
	fs.StringVar(&c.tlsKey, "cassandra-tls-key", "", "PEM key of -cassandra-tls-cert")
	fs.StringVar(&c.tlsServerName, "cassandra-tls-server-name", "", "name the nodes' certificates must carry (default: check the chain only)")
	fs.StringVar(&c.dc, "cassandra-dc", "", "local data center: requests prefer its nodes; DatacenterShardStrategy replicates there (default: the contacted node's)")
	fs.DurationVar(&c.timeout, "cassandra-timeout", 10*time.Second, "time each request to the cluster may take")
	fs.BoolVar(&c.drop, "cassandra-drop", false, "drop every keyspace thriftd created under -cassandra-prefix, then exit")
}

// check refuses combinations that cannot work, before anything starts.
func (c *cassandraFlags) check(f *flags) error {
	if c.hosts == "" {
		for name, set := range map[string]bool{"-cassandra-prefix": c.prefix != "", "-cassandra-username": c.username != "",
			"-cassandra-password-file": c.passwordFile != "", "-cassandra-tls-ca": c.tlsCA != "", "-cassandra-tls-cert": c.tlsCert != "",
			"-cassandra-tls-key": c.tlsKey != "", "-cassandra-tls-server-name": c.tlsServerName != "", "-cassandra-dc": c.dc != "", "-cassandra-drop": c.drop} {
			if set {
				return fmt.Errorf("%s needs -cassandra", name)
			}
		}
		return nil
	}
	if f.repair {
		return errors.New("-repair recovers a LevelDB store; it cannot be combined with -cassandra")
	}
	if f.data != "" {
		return errors.New("-data is the LevelDB store's directory; it cannot be combined with -cassandra")
	}
	if c.drop && c.prefix == "" {
		return errors.New("-cassandra-drop needs -cassandra-prefix (it drops only the keyspaces of one prefix)")
	}
	if (c.tlsCert == "") != (c.tlsKey == "") {
		return errors.New("-cassandra-tls-cert and -cassandra-tls-key go together")
	}
	return nil
}

// cluster resolves the flags into how to reach the cluster.
func (c *cassandraFlags) cluster() (cqlstore.Cluster, error) {
	cl := cqlstore.Cluster{
		Username: c.username, TLSCA: c.tlsCA, TLSCert: c.tlsCert, TLSKey: c.tlsKey,
		TLSServerName: c.tlsServerName, LocalDC: c.dc, Timeout: c.timeout,
	}
	for _, h := range strings.Split(c.hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			cl.Hosts = append(cl.Hosts, h)
		}
	}
	if c.passwordFile != "" {
		raw, err := os.ReadFile(c.passwordFile)
		if err != nil {
			return cl, fmt.Errorf("-cassandra-password-file: %w", err)
		}
		cl.Password, _, _ = strings.Cut(string(raw), "\n")
		cl.Password = strings.TrimRight(cl.Password, "\r")
	}
	if c.username != "" && c.passwordFile == "" {
		return cl, errors.New("-cassandra-username needs -cassandra-password-file")
	}
	return cl, nil
}

// startTimeout bounds connecting and creating the schema at start.
const startTimeout = 5 * time.Minute

// openCassandra opens the Cassandra store for s.
func (c *cassandraFlags) open(cfg *config.Config, s *schema.Schema, log *slog.Logger) (*cqlstore.Store, error) {
	cl, err := c.cluster()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	start := time.Now()
	st, err := cqlstore.Open(ctx, s, cqlstore.Options{Cluster: cl, Prefix: c.prefix, GCGraceSeconds: cfg.GCGraceSeconds, Logger: log})
	if err != nil {
		return nil, err
	}
	log.Info("Cassandra schema ready", "hosts", c.hosts, "prefix", c.prefix, "took", time.Since(start).Round(time.Millisecond).String())
	return st, nil
}

// dropPrefix is -cassandra-drop.
func (c *cassandraFlags) dropPrefix(log *slog.Logger) error {
	cl, err := c.cluster()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	dropped, err := cqlstore.DropPrefix(ctx, cl, c.prefix)
	if err != nil {
		return err
	}
	log.Info("dropped the keyspaces of the prefix", "prefix", c.prefix, "keyspaces", strings.Join(dropped, ","))
	return nil
}
