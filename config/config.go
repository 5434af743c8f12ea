package config

import "time"

// Config is the whole configuration of one thriftd process. Cluster-only
// settings (seeds, storage port, replication) are kept and reported but
// change nothing on a single node. Every field is the element of the same
// name, as written in the file (strings are not trimmed), or 0.6's default
// when the element is absent or empty; docs/configuration.md describes each.
type Config struct {
	// Path is the file the configuration was read from; Text is its content,
	// returned by get_string_property("config file").
	Path string
	Text []byte

	ClusterName          string // required, so never ""
	AutoBootstrap        bool   // default false
	HintedHandoffEnabled bool   // default true
	IndexInterval        int    // default 128
	// Authenticator is a fully qualified class name; default
	// "org.apache.cassandra.auth.AllowAllAuthenticator".
	Authenticator string
	// Authorizer is thriftd's own element, a class name as cassandra.yaml's
	// authorizer; "" when absent (AllowAllAuthorizer).
	Authorizer string
	// Partitioner is a fully qualified class name; short names get the
	// "org.apache.cassandra.dht." prefix.
	Partitioner  string
	InitialToken string // "" when unset

	// The directories are required (DataFileDirectories has at least one
	// entry) and kept as written: relative ones resolve against the
	// working directory, as in 0.6.
	SavedCachesDirectory string
	CommitLogDirectory   string
	DataFileDirectories  []string
	// Seeds has at least one entry; host names are kept as written, never
	// resolved.
	Seeds []string

	RpcTimeoutInMillis             int     // default 2000
	PhiConvictThreshold            int     // default 8
	CommitLogRotationThresholdInMB int     // default 128
	ListenAddress                  string  // "" when unset; never "0.0.0.0"
	StoragePort                    int     // default 7000
	ThriftAddress                  string  // "" when unset: ListenAddress
	ThriftPort                     int     // default 9160
	ThriftFramedTransport          bool    // default false
	DiskAccessMode                 string  // auto, mmap, mmap_index_only or standard
	RowWarningThresholdInMB        int64   // in MB; default 512
	SlicedBufferSizeInKB           int     // default 64
	FlushDataBufferSizeInMB        float64 // default 32
	FlushIndexBufferSizeInMB       float64 // default 8
	ColumnIndexSizeInKB            int     // default 64
	MemtableThroughputInMB         int     // default 64
	BinaryMemtableThroughputInMB   int     // default 256
	MemtableOperationsInMillions   float64 // default 0.1
	MemtableFlushAfterMinutes      int     // default 60
	ConcurrentReads                int     // default 8
	ConcurrentWrites               int     // default 32

	// CommitLogSync is "periodic" or "batch".
	CommitLogSync                string
	CommitLogSyncPeriodInMS      int     // periodic only
	CommitLogSyncBatchWindowInMS float64 // batch only
	GCGraceSeconds               int     // default 864000
	DoConsistencyChecksBoolean   bool    // default true
	SnapshotBeforeCompaction     bool    // default false
	JobTrackerHost               string
	JobJarFileLocation           string

	Keyspaces []Keyspace

	// Ignored lists the top-level elements present in the file that 0.6
	// does not read (e.g. BootstrapFileDirectory), for the start-up log.
	// Each name appears once, in document order.
	Ignored []string

	// Warnings are things worth a start-up log line that do not stop
	// start-up: a repeated element of which only the first is read, an
	// attribute or nested element that is not read, a deprecated attribute.
	Warnings []string

	// Server holds thriftd's own settings, which 0.6 did not have.
	Server Server
	// ClientEncryption is thriftd's <ClientEncryptionOptions> element, nil
	// when absent.
	ClientEncryption *ClientEncryption
	// ThriftTLSPort is thriftd's <ThriftTLSPort>, a second Thrift port,
	// whose clients speak TLS, on ThriftPort's host; HasThriftTLSPort
	// tells whether the element is present (0 is any free port).
	ThriftTLSPort    int
	HasThriftTLSPort bool
}

// Keyspace is one /Storage/Keyspaces/Keyspace element.
type Keyspace struct {
	Name                     string
	ReplicaPlacementStrategy string
	ReplicationFactor        int
	EndPointSnitch           string
	ColumnFamilies           []ColumnFamily
}

// ColumnFamily is one Keyspace/ColumnFamily element.
type ColumnFamily struct {
	Name       string
	ColumnType string // "Standard" (default) or "Super"
	// CompareWith and CompareSubcolumnsWith are as written in the file
	// (short or fully qualified), "BytesType" when absent;
	// CompareSubcolumnsWith is "" for a Standard column family.
	CompareWith           string
	CompareSubcolumnsWith string
	// Comment is the text of a <Comment> child element or a Comment
	// attribute; HasComment tells an empty comment from none.
	Comment    string
	HasComment bool

	KeysCached                  string // default "200000"
	RowsCached                  string // default "0"
	RowCacheSavePeriodInSeconds int
	KeyCacheSavePeriodInSeconds int
}

// Server is thriftd's own settings: limits and timeouts of the Thrift port,
// and where the authenticator's property files are. Each field's default is
// in DefaultServer.
type Server struct {
	// MaxMessageSize is the largest frame, string, binary or container a
	// client may send, in bytes; a larger one closes the connection.
	MaxMessageSize int64
	// MaxConnections is the most client connections open at once; an
	// excess connection is closed at once with a log line. 0 means no limit.
	MaxConnections int
	// IdleTimeout closes a connection that sends no complete request for
	// this long. 0 means never.
	IdleTimeout time.Duration
	// RequestTimeout bounds how long the rest of a request may take to
	// arrive once its first byte has: a client that trickles bytes is
	// disconnected. 0 means no bound.
	RequestTimeout time.Duration
	// ShutdownTimeout is how long a shutdown waits for calls in flight.
	ShutdownTimeout time.Duration
	// PasswdFile, AccessFile and PasswdMode configure SimpleAuthenticator.
	// Parse sets PasswdFile and AccessFile to passwd.properties and
	// access.properties in the configuration file's directory.
	PasswdFile string
	AccessFile string
	PasswdMode string
}

// DefaultServer returns the server settings used when nothing overrides them.
func DefaultServer() Server {
	return Server{
		MaxMessageSize:  16 << 20,
		MaxConnections:  4096,
		IdleTimeout:     0,
		RequestTimeout:  30 * time.Second,
		ShutdownTimeout: 30 * time.Second,
		PasswdMode:      "PLAIN",
	}
}
