package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/settings"
)

// authorizerReader is what checkClusterAuthorizer needs of the Cassandra
// store.
type authorizerReader interface {
	ClusterAuthorizer(ctx context.Context) (name string, known bool, err error)
}

// checkClusterAuthorizer fails closed: thriftd logs in to the cluster as
// one user (usually a superuser), so with PasswordAuthenticator and
// AllowAllAuthorizer every thriftd user may read and write every table,
// also where the cluster, which enforces an authorizer, would refuse that
// user. Start-up then stops, naming the settings, unless
// auth.accept_allow_all_authorizer says it is meant. A cluster that cannot
// name its authorizer (3.11 has no system_views) is warned about only.
func checkClusterAuthorizer(ctx context.Context, eff *settings.Effective, st authorizerReader, log *slog.Logger) error {
	cfg := eff.Storage
	if cfg.Authenticator != auth.PasswordAuthenticator || cfg.Authorizer == auth.CassandraAuthorizer {
		return nil
	}
	hosts := strings.Join(eff.Cassandra.Hosts, ",")
	name, known, err := st.ClusterAuthorizer(ctx)
	if err != nil {
		return fmt.Errorf("reading the authorizer of the Cassandra cluster at %s (system_views.settings), to tell whether auth.authorizer %s would serve what it refuses: %w", hosts, cfg.Authorizer, err)
	}
	if !known {
		log.Warn("the Cassandra cluster does not say which authorizer it enforces (system_views.settings is Cassandra 4.0's); thriftd checks no permission under AllowAllAuthorizer: every user who logs in may read and write every table",
			"cassandra", hosts, "authorizer", cfg.Authorizer)
		return nil
	}
	if auth.ClassName(name) == auth.AllowAllAuthorizer || name == "" {
		return nil
	}
	if eff.Auth.AcceptAllowAllAuthorizer {
		log.Warn("serving with AllowAllAuthorizer in front of a cluster that enforces its own authorizer, as auth.accept_allow_all_authorizer allows: every user who logs in may read and write every table",
			"cassandra", hosts, "cluster_authorizer", name, "authorizer", cfg.Authorizer)
		return nil
	}
	return fmt.Errorf("the Cassandra cluster at %s enforces authorizer %s, but thriftd's auth.authorizer (-authorizer) is %s: every user who logs in to thriftd could read and write every table thriftd serves, as thriftd reaches the cluster as its own user. Set auth.authorizer: CassandraAuthorizer to check each user's grants as the cluster does, or auth.accept_allow_all_authorizer: true (-accept-allow-all-authorizer) if that is meant",
		hosts, name, cfg.Authorizer)
}
