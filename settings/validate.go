package settings

import (
	"fmt"
	"log/slog"
	"math"
	"net"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/tlsconf"
)

// Validate checks what types cannot: ranges, sets of words, addresses and
// settings that depend on each other. The error names the first setting at
// fault and where its value came from.
func (e *Effective) Validate() error {
	s := &e.Settings
	bad := func(key, format string, args ...any) error {
		return e.Origin(key).errorf(fieldByKey(key), format, args...)
	}
	oneOf := func(key, v string, words ...string) error {
		for _, w := range words {
			if v == w {
				return nil
			}
		}
		return bad(key, "want %s, not %q", strings.Join(words, " or "), v)
	}
	type check func() error
	checks := []check{
		func() error {
			if e.NoStorageConf() {
				return nil // the built-in configuration
			}
			return nonEmpty(bad, "storage_conf", s.StorageConf)
		},
		func() error { return address(bad, "listen", s.Listen, 0) },
		func() error { return nonEmpty(bad, "data", s.Data) },
		func() error { return oneOf("sync", s.Sync, "periodic", "batch") },
		func() error { return oneOf("api", s.API, "auto", "0.6", "19.x") },
		func() error { return oneOf("migration.reads", s.Migration.Reads, "origin", "both", "target") },
		func() error { return oneOf("migration.writes", s.Migration.Writes, "both", "target") },
		func() error {
			if s.Migration.Writes == "target" && s.Migration.Reads != "target" {
				return bad("migration.writes", "target (origin writes off) needs migration.reads target, not %s", s.Migration.Reads)
			}
			return nil
		},
		func() error {
			if s.Migration.Origin == "" {
				return nil
			}
			return address(bad, "migration.origin", s.Migration.Origin, 0)
		},
		func() error {
			if s.Migration.TargetListen == "" {
				return nil
			}
			return address(bad, "migration.target_listen", s.Migration.TargetListen, 0)
		},
		func() error {
			if s.SyncPeriod < time.Millisecond && (s.Sync == "periodic" || s.SyncPeriod < 0) {
				return bad("sync_period", "want at least 1ms, not %v", s.SyncPeriod)
			}
			return nil
		},
		func() error {
			if n := s.Limits.MaxMessageMB; n < 1 || n > math.MaxInt32 {
				return bad("limits.max_message_mb", "want a positive number of MiB, not %d", n)
			}
			return nil
		},
		func() error { return atLeastZero(bad, "limits.max_connections", s.Limits.MaxConnections) },
		func() error { return atLeastZero(bad, "limits.idle_timeout", s.Limits.IdleTimeout) },
		func() error { return atLeastZero(bad, "limits.request_timeout", s.Limits.RequestTimeout) },
		func() error { return atLeastZero(bad, "limits.shutdown_timeout", s.Limits.ShutdownTimeout) },
		func() error {
			return oneOf("auth.authenticator", auth.ClassName(s.Auth.Authenticator), auth.AllowAllAuthenticator, auth.SimpleAuthenticator, auth.PasswordAuthenticator)
		},
		func() error {
			return oneOf("auth.authorizer", auth.ClassName(s.Auth.Authorizer), "", auth.AllowAllAuthorizer, auth.CassandraAuthorizer)
		},
		func() error {
			if auth.ClassName(s.Auth.Authorizer) == auth.CassandraAuthorizer && auth.ClassName(s.Auth.Authenticator) != auth.PasswordAuthenticator {
				return bad("auth.authorizer", "CassandraAuthorizer needs PasswordAuthenticator, not %s", s.Auth.Authenticator)
			}
			return nil
		},
		func() error { return atLeastZero(bad, "auth.roles_validity_in_ms", s.Auth.RolesValidityInMS) },
		func() error {
			return atLeastZero(bad, "auth.permissions_validity_in_ms", s.Auth.PermissionsValidityInMS)
		},
		func() error {
			return atLeastZero(bad, "auth.credentials_validity_in_ms", s.Auth.CredentialsValidityInMS)
		},
		func() error { return atLeastZero(bad, "auth.max_failed_logins", s.Auth.MaxFailedLogins) },
		func() error { return atLeastZero(bad, "auth.failed_login_window", s.Auth.FailedLoginWindow) },
		func() error { return nonEmpty(bad, "auth.passwd_file", s.Auth.PasswdFile) },
		func() error { return nonEmpty(bad, "auth.access_file", s.Auth.AccessFile) },
		func() error { return oneOf("auth.passwd_mode", s.Auth.PasswdMode, "PLAIN", "MD5") },
		func() error {
			var l slog.Level
			if l.UnmarshalText([]byte(s.Log.Level)) != nil {
				return bad("log.level", "want debug, info, warn or error, not %q", s.Log.Level)
			}
			return nil
		},
		func() error { return oneOf("log.format", s.Log.Format, "text", "json") },
		func() error { return e.validateTLS(bad) },
		func() error { return e.validateCassandra(bad) },
		func() error {
			if s.Admin.Listen == "off" {
				return nil
			}
			return address(bad, "admin.listen", s.Admin.Listen, 0)
		},
		func() error {
			if s.Admin.Pprof == "" {
				return nil
			}
			return address(bad, "admin.pprof", s.Admin.Pprof, 0)
		},
	}
	for _, c := range checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

type badFunc func(key, format string, args ...any) error

func nonEmpty(bad badFunc, key, v string) error {
	if v == "" {
		return bad(key, "must not be empty")
	}
	return nil
}

func atLeastZero[N int | time.Duration](bad badFunc, key string, v N) error {
	if v < 0 {
		return bad(key, "must be 0 or more, not %v", v)
	}
	return nil
}

// address checks HOST:PORT, with a port from minPort to 65535; the host
// may be empty (every interface). Port 0 asks for any free port.
func address(bad badFunc, key, v string, minPort uint64) error {
	_, port, err := net.SplitHostPort(v)
	if err != nil {
		return bad(key, "want HOST:PORT, not %q", v)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n < minPort {
		return bad(key, "want HOST:PORT with a port number from %d to 65535, not %q", minPort, v)
	}
	return nil
}

// validateTLS checks client_encryption_options when enabled; a disabled
// section is not read, as in Cassandra, whose stock cassandra.yaml carries
// one with its keystore set.
func (e *Effective) validateTLS(bad badFunc) error {
	c := &e.ClientEncryption
	if e.TLSListen != "" {
		if err := address(bad, "tls_listen", e.TLSListen, 0); err != nil {
			return err
		}
		if !c.Enabled {
			return bad("tls_listen", "is set, but client_encryption_options.enabled is false")
		}
		if _, port, _ := net.SplitHostPort(e.TLSListen); e.TLSListen == e.Listen && port != "0" {
			return bad("tls_listen", "is listen's address too: the TLS port needs a port of its own, or drop tls_listen to put TLS on listen's port")
		}
	}
	if !c.Enabled {
		return nil
	}
	const k = "client_encryption_options."
	// A store left unset is named with the file line (or element) of the
	// setting that needs it, when that came from a file.
	missing := func(key, by, why string) error {
		if o := e.Origin(by); o.Layer != Default && o.Layer != CommandLine {
			return fmt.Errorf("%s: %s: must be set: %s", o, key, why)
		}
		return bad(key, "must be set: %s", why)
	}
	if c.Keystore == "" {
		return missing(k+"keystore", k+"enabled", "enabled needs the server's certificate and key")
	}
	if c.RequireClientAuth && c.Truststore == "" {
		return missing(k+"truststore", k+"require_client_auth", "require_client_auth needs the authorities of client certificates")
	}
	if _, _, err := tlsconf.Protocol(c.Protocol); err != nil {
		return bad(k+"protocol", "%v", err)
	}
	if len(c.CipherSuites) > 0 {
		if _, _, err := tlsconf.CipherSuites(c.CipherSuites); err != nil {
			return bad(k+"cipher_suites", "%v", err)
		}
	}
	switch strings.ToUpper(c.StoreType) {
	case "", "JKS", "PKCS12", "PEM":
	default:
		return bad(k+"store_type", "want PKCS12, PEM or JKS, not %q", c.StoreType)
	}
	if c.HandshakeTimeout <= 0 {
		return bad(k+"handshake_timeout", "must be positive, not %v", c.HandshakeTimeout)
	}
	return nil
}

// SettingError is err, about the value of the setting with this key,
// worded as Validate words its errors: with the file and line, or the
// flag, the value came from. For what is found wrong after Resolve, such
// as a keystore that cannot be read.
func (e *Effective) SettingError(key string, err error) error {
	f := fieldByKey(key)
	if f == nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return e.Origin(key).errorf(f, "%v", err)
}

func (e *Effective) validateCassandra(bad badFunc) error {
	c := &e.Cassandra
	if len(c.Hosts) == 0 {
		// The backend is LevelDB: a Cassandra setting would do nothing.
		def := Defaults()
		for _, f := range fields() {
			if !strings.HasPrefix(f.key, "cassandra.") {
				continue
			}
			if !reflect.DeepEqual(f.value(&e.Settings).Interface(), f.value(&def).Interface()) {
				return bad(f.key, "is set, but cassandra.hosts is empty: the Cassandra settings need the Cassandra backend (-cassandra HOST:PORT)")
			}
		}
		return nil
	}
	for _, h := range c.Hosts {
		if err := address(bad, "cassandra.hosts", h, 1); err != nil {
			return err
		}
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		key := "cassandra.tls_key"
		if c.TLSKey != "" {
			key = "cassandra.tls_cert"
		}
		return bad(key, "must be set too: a client certificate needs both tls_cert and tls_key")
	}
	if c.PasswordFile != "" && c.Username == "" {
		return bad("cassandra.password_file", "is set, but cassandra.username is empty")
	}
	if c.Timeout <= 0 {
		return bad("cassandra.timeout", "must be positive, not %v", c.Timeout)
	}
	return nil
}
