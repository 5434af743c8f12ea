package settings

import "time"

// Settings is every setting of thriftd besides the schema, in the manner of
// an options struct: each field carries in its tags its key in thriftd.yaml
// (yaml), its command-line flag (flag; none when absent), its default
// (default, written as on the command line; absent means the zero value)
// and its help text (help, where {WORD} names the flag's argument). Fields
// tagged path are file names, which resolve against thriftd.yaml's
// directory.
//
// A field of a struct type is a section of thriftd.yaml (limits:, auth:, ...)
// holding its own fields' keys. Adding a setting is adding one field here:
// reading thriftd.yaml, the flag, -print-config, and the tests that the
// example thriftd.yaml and docs/configuration.md name every key all follow
// from the tags. Only a value with a meaning beyond its type (a range, a set
// of words, a dependency on another setting) also needs a line in Validate.
//
// Where the default is "" and the help says "default: ... of
// storage-conf.xml", the value comes from storage-conf.xml; Load and Resolve always fill it in,
// so a resolved Settings has no such empty field.
type Settings struct {
	// StorageConf is the Cassandra 0.6 storage-conf.xml served: the schema,
	// and the settings of the layer below thriftd.yaml.
	StorageConf string `yaml:"storage_conf" path:"" default:"storage-conf.xml" help:"the Cassandra 0.6 storage-conf.xml to serve: its schema, and its settings where neither thriftd.yaml nor a flag sets them (on the command line: -config FILE.xml)"`
	// Listen is the Thrift port's address.
	Listen string `yaml:"listen" flag:"listen" help:"where Thrift clients connect, {HOST:PORT}; framed and unframed clients are both accepted (default: ThriftAddress and ThriftPort of storage-conf.xml)"`
	// TLSListen is a second Thrift port, whose clients speak TLS, beside
	// the plain one of Listen; empty with client_encryption_options
	// enabled makes Listen's port speak TLS, as in Cassandra.
	TLSListen string `yaml:"tls_listen" flag:"tls-listen" help:"a second Thrift port at {HOST:PORT} whose clients speak TLS, beside the plain one of listen, for a migration (needs client_encryption_options.enabled; without it, enabled puts TLS on listen's port)"`
	// API is the interface a fresh connection's ambiguous calls are
	// answered in: auto, 0.6 or 19.x.
	API string `yaml:"api" flag:"api" default:"auto" help:"how to answer a fresh connection's calls that look alike in both Thrift APIs (describe_keyspaces, describe_keyspace, describe_version): {API} auto (unframed is Cassandra 0.6's API, framed is 0.7-2.1's 19.x API unless storage-conf.xml sets ThriftFramedTransport), 0.6 or 19.x"`
	// Data is the directory of the LevelDB store.
	Data string `yaml:"data" path:"" flag:"data" help:"the LevelDB store's directory {DIR}, created if missing (default: the first DataFileDirectory of storage-conf.xml)"`
	// Sync is "periodic" or "batch".
	Sync string `yaml:"sync" flag:"sync" help:"durability {MODE}: periodic (a write reaches the operating system before its reply, and the journal is fsync'ed every sync period) or batch (a write is fsync'ed before its reply) (default: CommitLogSync of storage-conf.xml)"`
	// SyncPeriod is how often the journal is fsync'ed in periodic mode.
	SyncPeriod time.Duration `yaml:"sync_period" flag:"sync-period" default:"10s" help:"in periodic mode, fsync the journal every {DURATION} (storage-conf.xml: CommitLogSyncPeriodInMS)"`

	Limits           Limits           `yaml:"limits"`
	ClientEncryption ClientEncryption `yaml:"client_encryption_options"`
	Auth             Auth             `yaml:"auth"`
	Log              Log              `yaml:"log"`
	Cassandra        Cassandra        `yaml:"cassandra"`
	Admin            Admin            `yaml:"admin"`
	Migration        Migration        `yaml:"migration"`
}

// ClientEncryption is TLS on the Thrift port, under the name and with the
// keys of cassandra.yaml's client_encryption_options (Cassandra 2.x-3.11),
// so that a deployment's section is copied over as it is; the keystore and
// truststore are PEM or PKCS12 files (package tlsconf). The passwords have
// no flag, to keep them off command lines, and -print-config does not
// print them.
type ClientEncryption struct {
	Enabled            bool          `yaml:"enabled" flag:"tls" help:"serve the Thrift port over TLS: the port of tls_listen if set, else listen's"`
	Optional           bool          `yaml:"optional" flag:"tls-optional" help:"on the TLS port, also serve clients that speak plain Thrift, told apart by their first byte (Cassandra 3.11's optional)"`
	Keystore           string        `yaml:"keystore" path:"" flag:"tls-keystore" help:"the server's certificate chain and private key, a PEM or PKCS12 {FILE}"`
	KeystorePassword   string        `yaml:"keystore_password" secret:"" help:"the password of a PKCS12 keystore"`
	RequireClientAuth  bool          `yaml:"require_client_auth" flag:"tls-require-client-auth" help:"accept only clients presenting a certificate signed by an authority of the truststore"`
	Truststore         string        `yaml:"truststore" path:"" flag:"tls-truststore" help:"the certificate authorities of client certificates, a PEM or PKCS12 {FILE}"`
	TruststorePassword string        `yaml:"truststore_password" secret:"" help:"the password of a PKCS12 truststore"`
	Protocol           string        `yaml:"protocol" flag:"tls-protocol" default:"TLS" help:"the newest TLS version spoken, {NAME} TLS (1.2 and 1.3), TLSv1.3, TLSv1.2, TLSv1.1 or TLSv1; the oldest is TLS 1.2, or the one named when older"`
	CipherSuites       []string      `yaml:"cipher_suites" flag:"tls-cipher-suites" help:"the TLS 1.2 cipher suites offered, {NAME[,NAME...]} as Java names them (default: Go's)"`
	StoreType          string        `yaml:"store_type" flag:"tls-store-type" help:"{TYPE} of the keystore and truststore, PKCS12 or PEM (default: told by their content; JKS, Cassandra's default, is taken to mean a store converted to PKCS12)"`
	HandshakeTimeout   time.Duration `yaml:"handshake_timeout" flag:"tls-handshake-timeout" default:"10s" help:"a client has this {DURATION} from connecting to finish its TLS handshake"`
}

// Limits bound what clients may take of the Thrift port.
type Limits struct {
	// MaxMessageMB is the largest frame, string, binary or container a
	// client may send, in MiB.
	MaxMessageMB int `yaml:"max_message_mb" flag:"max-message-mb" default:"16" help:"accept requests of up to {N} MiB; a larger one closes its connection (storage-conf.xml: ThriftMaxMessageLengthInMB)"`
	// MaxConnections is the most client connections at once; 0: no limit.
	MaxConnections int `yaml:"max_connections" flag:"max-connections" default:"4096" help:"serve at most {N} client connections at once, 0 for no limit; one more is closed at once (storage-conf.xml: ThriftMaxConnections)"`
	// IdleTimeout closes a connection idle this long; 0: never.
	IdleTimeout time.Duration `yaml:"idle_timeout" flag:"idle-timeout" default:"0s" help:"close a connection idle for this {DURATION} (e.g. 10m), 0 for never (storage-conf.xml: ThriftIdleTimeoutInSeconds)"`
	// RequestTimeout is the time a started request has to arrive in full;
	// 0: no bound.
	RequestTimeout time.Duration `yaml:"request_timeout" flag:"request-timeout" default:"30s" help:"give a started request this {DURATION} to arrive in full, 0 for no bound (storage-conf.xml: ThriftRequestTimeoutInSeconds)"`
	// ShutdownTimeout is how long a shutdown waits for calls in flight.
	ShutdownTimeout time.Duration `yaml:"shutdown_timeout" flag:"shutdown-timeout" default:"30s" help:"on SIGINT or SIGTERM, give calls in flight this {DURATION} to finish"`
}

// Auth chooses the authenticator and authorizer, and locates
// SimpleAuthenticator's files, read only under SimpleAuthenticator.
// docs/security.md describes PasswordAuthenticator and
// CassandraAuthorizer.
type Auth struct {
	// Authenticator and Authorizer are class names, short or fully
	// qualified.
	Authenticator string `yaml:"authenticator" flag:"authenticator" help:"{CLASS} that checks logins: AllowAllAuthenticator, SimpleAuthenticator or PasswordAuthenticator, short or fully qualified (default: Authenticator of storage-conf.xml)"`
	Authorizer    string `yaml:"authorizer" flag:"authorizer" default:"org.apache.cassandra.auth.AllowAllAuthorizer" help:"{CLASS} that checks each call's permission: AllowAllAuthorizer or CassandraAuthorizer (needs PasswordAuthenticator), short or fully qualified (default: Authorizer of storage-conf.xml, else AllowAllAuthorizer)"`
	// AcceptAllowAllAuthorizer lets PasswordAuthenticator with
	// AllowAllAuthorizer start in front of a Cassandra cluster that
	// enforces an authorizer of its own; without it start-up stops, as
	// thriftd would serve every user what the cluster refuses them.
	AcceptAllowAllAuthorizer bool `yaml:"accept_allow_all_authorizer" flag:"accept-allow-all-authorizer" help:"on the Cassandra store, start with PasswordAuthenticator and AllowAllAuthorizer although the cluster enforces an authorizer (its system_views.settings say so): every user who logs in may then read and write every table thriftd serves; without it start-up stops"`
	// The validities are cassandra.yaml's, in milliseconds; 0 disables
	// the cache.
	RolesValidityInMS       int `yaml:"roles_validity_in_ms" flag:"roles-validity-in-ms" default:"2000" help:"cache a role (its hash, login, superuser and memberships) for {MS} milliseconds, 0 for no cache (cassandra.yaml: roles_validity_in_ms)"`
	PermissionsValidityInMS int `yaml:"permissions_validity_in_ms" flag:"permissions-validity-in-ms" default:"2000" help:"cache a user's permissions for {MS} milliseconds, 0 for no cache (cassandra.yaml: permissions_validity_in_ms)"`
	CredentialsValidityInMS int `yaml:"credentials_validity_in_ms" flag:"credentials-validity-in-ms" default:"2000" help:"cache a password verified against its bcrypt hash for {MS} milliseconds, 0 for no cache (cassandra.yaml: credentials_validity_in_ms)"`
	// MaxFailedLogins failed logins of one user from one host within
	// FailedLoginWindow refuse that user's further logins from that host;
	// thriftd's own bound, off (0) by default as Cassandra has none.
	MaxFailedLogins   int           `yaml:"max_failed_logins" flag:"max-failed-logins" default:"0" help:"under PasswordAuthenticator, after {N} failed logins of one user from one client host within failed_login_window, refuse that user's logins from that host until the window passes (other users and hosts are not affected); 0, the default, for no limit, as Cassandra"`
	FailedLoginWindow time.Duration `yaml:"failed_login_window" flag:"failed-login-window" default:"1m0s" help:"the {DURATION} over which max_failed_logins counts"`
	// AuditLog is the audit log's file; "" writes none.
	AuditLog string `yaml:"audit_log" path:"" flag:"audit-log" help:"append a JSON line per login (success or failure) and per refused permission to {FILE} (default: none)"`

	PasswdFile string `yaml:"passwd_file" path:"" flag:"passwd" help:"SimpleAuthenticator's users and passwords, a Java properties {FILE} (default: passwd.properties beside storage-conf.xml)"`
	AccessFile string `yaml:"access_file" path:"" flag:"access" help:"SimpleAuthenticator's keyspace access lists, a Java properties {FILE} (default: access.properties beside storage-conf.xml)"`
	// PasswdMode is "PLAIN" or "MD5".
	PasswdMode string `yaml:"passwd_mode" flag:"passwd-mode" default:"PLAIN" help:"how passwords are stored in the passwd file, {MODE} PLAIN or MD5 (lowercase hex)"`
}

// Log is what thriftd logs (log/slog) to standard error.
type Log struct {
	Level  string `yaml:"level" flag:"log-level" default:"info" help:"least severe {LEVEL} logged: debug, info, warn or error"`
	Format string `yaml:"format" flag:"log-format" default:"text" help:"{FORMAT} of log lines: text or json"`
}

// Cassandra selects and reaches the Cassandra backend. With Hosts empty,
// data lives in the embedded LevelDB store and every other field must be
// left at its default.
type Cassandra struct {
	// Hosts are the contact points, HOST:PORT each.
	Hosts          []string `yaml:"hosts" flag:"cassandra" help:"store data in the Cassandra cluster reached at {HOST:PORT[,HOST:PORT...]} (CQL native port) instead of the embedded LevelDB store"`
	KeyspacePrefix string   `yaml:"keyspace_prefix" flag:"cassandra-prefix" help:"{PREFIX} of the name of every CQL keyspace thriftd uses"`
	// Adopt are CQL keyspaces thriftd did not create, served in place.
	Adopt         []string      `yaml:"adopt_keyspaces" flag:"cassandra-adopt" help:"serve the existing CQL keyspaces {KS[,KS...]} in place (named without the prefix; never changed by thriftd)"`
	Username      string        `yaml:"username" flag:"cassandra-username" help:"{USER} to log in to Cassandra as (default: no login)"`
	PasswordFile  string        `yaml:"password_file" path:"" flag:"cassandra-password-file" help:"{FILE} whose first line is the Cassandra password"`
	TLSCA         string        `yaml:"tls_ca" path:"" flag:"cassandra-tls-ca" help:"PEM {FILE} of the certificate authorities to trust; any tls_ setting turns TLS on"`
	TLSCert       string        `yaml:"tls_cert" path:"" flag:"cassandra-tls-cert" help:"PEM {FILE} of thriftd's client certificate (with tls_key)"`
	TLSKey        string        `yaml:"tls_key" path:"" flag:"cassandra-tls-key" help:"PEM {FILE} of the client certificate's private key (with tls_cert)"`
	TLSServerName string        `yaml:"tls_server_name" flag:"cassandra-tls-server-name" help:"{NAME} the nodes' certificates must carry (default: the host dialled)"`
	LocalDC       string        `yaml:"local_dc" flag:"cassandra-dc" help:"{NAME} of the local data center, whose nodes are queried first"`
	Timeout       time.Duration `yaml:"timeout" flag:"cassandra-timeout" default:"10s" help:"{DURATION} one query to Cassandra may take"`
}

// Admin is thriftd's HTTP endpoint for operators.
type Admin struct {
	// Listen is HOST:PORT, or "off".
	Listen    string `yaml:"listen" flag:"admin" default:"127.0.0.1:9161" help:"where the admin HTTP endpoint listens, {HOST:PORT}, or off"`
	TokenFile string `yaml:"token_file" path:"" flag:"admin-token-file" help:"{FILE} whose first line is the bearer token the admin endpoint requires (default: none)"`
	// Pprof is a deprecated alias of Listen: the profiles are served by the
	// admin endpoint under /debug/pprof/. When set, it wins over Listen.
	Pprof string `yaml:"pprof" flag:"pprof" help:"deprecated: the same as -admin {HOST:PORT}; the runtime profiles are served by the admin endpoint under /debug/pprof/"`
}

// Migration makes thriftd the proxy of a move off a running Cassandra
// 0.7-3.11 cluster, the origin (package migrate; docs/migration.md): the
// 19.x API's writes go to the origin and to thriftd's store, reads come
// from the cluster Reads names. With Origin empty thriftd serves its store
// alone and the other fields are unused. Reads and Writes are read again
// from thriftd.yaml at SIGHUP (a flag, which wins over the file, pins them).
type Migration struct {
	Origin           string        `yaml:"origin" flag:"origin" help:"proxy the 19.x API to the running Cassandra 0.7-3.11 cluster whose Thrift port is {HOST:PORT} (the origin), writing to it and to thriftd's store (default: off)"`
	OriginUsername   string        `yaml:"origin_username" flag:"origin-username" help:"{USER} every origin connection logs in as (default: no login; clients' own logins are checked by thriftd)"`
	OriginPassword   string        `yaml:"origin_password_file" path:"" flag:"origin-password-file" help:"{FILE} whose first line is the origin password"`
	OriginTLSCA      string        `yaml:"origin_tls_ca" path:"" flag:"origin-tls-ca" help:"PEM {FILE} of the authorities the origin's certificate is checked against; set, the origin is spoken to over TLS"`
	OriginServerName string        `yaml:"origin_tls_server_name" flag:"origin-tls-server-name" help:"{NAME} the origin's certificate must carry (default: the host dialled)"`
	OriginTimeout    time.Duration `yaml:"origin_timeout" flag:"origin-timeout" default:"30s" help:"{DURATION} one origin call may take; beyond it the client gets TimedOutException"`
	Reads            string        `yaml:"reads" flag:"migration-reads" default:"origin" help:"who answers reads, {FROM} origin, both (the origin answers, the target's answer is compared and each difference counted and logged) or target (the cutover)"`
	Writes           string        `yaml:"writes" flag:"migration-writes" default:"both" help:"who takes writes, {TO} both (the origin, then thriftd's store) or target (origin writes off: the last step, after which going back needs a copy)"`
	TargetListen     string        `yaml:"target_listen" flag:"migration-target-listen" help:"also serve thriftd's store alone, without the origin, on {HOST:PORT}: where thriftd-tool copy writes and verify reads the target (default: off)"`
	PendingLog       string        `yaml:"pending_log" path:"" flag:"migration-pending-log" help:"{FILE} of the durable log of target writes that failed, replayed until the target takes them (default: migration-pending.log in the data directory)"`
}

// Defaults returns every setting at its default (its default tag).
func Defaults() Settings {
	var s Settings
	for _, f := range fields() {
		v, err := f.parse(f.def)
		if err != nil {
			panic("settings: the default of " + f.key + ": " + err.Error())
		}
		f.value(&s).Set(v)
	}
	return s
}
