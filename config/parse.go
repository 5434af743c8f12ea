package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Defaults of Cassandra 0.6.13 for settings a file may leave out.
const (
	DefaultAuthenticator = "org.apache.cassandra.auth.AllowAllAuthenticator"
	DefaultComparator    = "BytesType"
	DefaultKeysCached    = "200000"
	DefaultRowsCached    = "0"

	// partitionerPackage is where a partitioner name without '.' lives.
	partitionerPackage = "org.apache.cassandra.dht."
)

// Load reads and parses the configuration file at path; see Parse.
// A file that cannot be read gives an *Error naming it.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = "cannot read the configuration file: " + pe.Err.Error()
		}
		return nil, &Error{File: path, Msg: msg, Err: err}
	}
	return Parse(data, path)
}

// Parse reads a storage-conf.xml as Cassandra 0.6.13 did and returns the
// configuration, with 0.6's default for every element left out. path names
// the file in errors and in Config.Path; it is not opened.
//
// The rules are 0.6's: element names are case-sensitive; an empty element
// (<X></X>) counts as absent, while an empty attribute (X="") is present;
// values are taken as written, untrimmed; numbers and booleans parse as
// Java's did. A configuration 0.6 refused to start with gives an *Error
// whose Msg is 0.6's message, for the first problem in 0.6's order of
// checks. thriftd adds a few checks of its own (a keyspace or a column
// family defined twice, an empty Seed or DataFileDirectory, a missing
// ClusterName or DiskAccessMode, which made 0.6 fail without a message,
// and its own Thrift* elements), worded in the same style.
//
// Nothing is resolved or created: Seed and ListenAddress host names are
// kept as written (0.6 looked them up; thriftd is a single node and never
// dials them), relative directories stay relative to the working directory
// (as in 0.6), and class names other than the partitioner's are kept as
// written for the layers that implement them to check.
func Parse(data []byte, path string) (*Config, error) {
	return ParseWith(data, path, Options{})
}

// Options relax Parse where thriftd serves more than 0.6 did.
type Options struct {
	// AllowNoKeyspaces accepts a file that declares no keyspace, which 0.6
	// refused ("No keyspaces configured"): thriftd then starts with none,
	// and clients create them through the 19.x API.
	AllowNoKeyspaces bool
}

// LoadWith is Load with Options.
func LoadWith(path string, o Options) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Load(path) // the same error, worded as Load words it
	}
	return ParseWith(data, path, o)
}

// ParseWith is Parse with Options.
func ParseWith(data []byte, path string, o Options) (*Config, error) {
	root, err := parseDocument(data)
	if err != nil {
		return nil, &Error{File: path, Msg: "malformed XML: " + err.Error(), Err: err}
	}
	if root.name != "Storage" {
		return nil, &Error{File: path, Element: "/" + root.name,
			Msg: "the document element must be <Storage>"}
	}
	p := &parser{file: path, root: root, c: newConfig(data, path), opts: o}
	p.readAll()
	if p.err != nil {
		return nil, p.err
	}
	return p.c, nil
}

// newConfig returns a Config holding every default of 0.6.13 and of
// thriftd.
func newConfig(data []byte, path string) *Config {
	srv := DefaultServer()
	dir := filepath.Dir(path)
	srv.PasswdFile = filepath.Join(dir, "passwd.properties")
	srv.AccessFile = filepath.Join(dir, "access.properties")
	return &Config{
		Path:                           path,
		Text:                           data,
		HintedHandoffEnabled:           true,
		IndexInterval:                  128,
		Authenticator:                  DefaultAuthenticator,
		RpcTimeoutInMillis:             2000,
		PhiConvictThreshold:            8,
		CommitLogRotationThresholdInMB: 128,
		StoragePort:                    7000,
		ThriftPort:                     9160,
		RowWarningThresholdInMB:        512,
		SlicedBufferSizeInKB:           64,
		FlushDataBufferSizeInMB:        32,
		FlushIndexBufferSizeInMB:       8,
		ColumnIndexSizeInKB:            64,
		MemtableThroughputInMB:         64,
		BinaryMemtableThroughputInMB:   256,
		MemtableOperationsInMillions:   0.1,
		MemtableFlushAfterMinutes:      60,
		ConcurrentReads:                8,
		ConcurrentWrites:               32,
		GCGraceSeconds:                 864000,
		DoConsistencyChecksBoolean:     true,
		Server:                         srv,
	}
}

// topLevel is every element directly under <Storage> that is read: those
// 0.6.13 read, then thriftd's own. Anything else goes to Config.Ignored.
var topLevel = map[string]bool{
	"ClusterName": true, "AutoBootstrap": true, "HintedHandoffEnabled": true,
	"IndexInterval": true, "Authenticator": true, "Authorizer": true, "Partitioner": true,
	"InitialToken": true, "SavedCachesDirectory": true, "CommitLogDirectory": true,
	"DataFileDirectories": true, "Seeds": true, "RpcTimeoutInMillis": true,
	"PhiConvictThreshold": true, "CommitLogRotationThresholdInMB": true,
	"ListenAddress": true, "StoragePort": true, "ThriftAddress": true,
	"ThriftPort": true, "ThriftFramedTransport": true, "DiskAccessMode": true,
	"RowWarningThresholdInMB": true, "SlicedBufferSizeInKB": true,
	"FlushDataBufferSizeInMB": true, "FlushIndexBufferSizeInMB": true,
	"ColumnIndexSizeInKB": true, "MemtableThroughputInMB": true,
	"BinaryMemtableThroughputInMB": true, "MemtableOperationsInMillions": true,
	"MemtableFlushAfterMinutes": true, "ConcurrentReads": true,
	"ConcurrentWrites": true, "CommitLogSync": true, "CommitLogSyncPeriodInMS": true,
	"CommitLogSyncBatchWindowInMS": true, "GCGraceSeconds": true,
	"DoConsistencyChecksBoolean": true, "SnapshotBeforeCompaction": true,
	"JobTrackerHost": true, "JobJarFileLocation": true, "Keyspaces": true,

	"ThriftMaxMessageLengthInMB": true, "ThriftMaxConnections": true,
	"ThriftIdleTimeoutInSeconds": true, "ThriftRequestTimeoutInSeconds": true,
	"ClientEncryptionOptions": true, "ThriftTLSPort": true,
}

// repeatable are the top-level elements whose every occurrence is read,
// because 0.6 read their children through a node-set XPath.
var repeatable = map[string]bool{"DataFileDirectories": true, "Seeds": true, "Keyspaces": true}

// parser fills a Config from a document. The first error stops it: every
// step after it is a no-op, so the steps read as 0.6's sequence of checks.
type parser struct {
	file string
	root *element
	c    *Config
	err  *Error
	opts Options
}

func (p *parser) fail(elem, format string, args ...any) {
	if p.err == nil {
		p.err = &Error{File: p.file, Element: elem, Msg: fmt.Sprintf(format, args...)}
	}
}

// readAll runs the checks in 0.6.13's order (DatabaseDescriptor's static
// initialiser, then createAllDirectories, then the system table's first
// write of ClusterName), followed by thriftd's own elements.
func (p *parser) readAll() {
	c := p.c
	p.scanTopLevel()
	c.ClusterName, _ = p.value("ClusterName")
	p.readCommitLogSync()
	p.readDiskAccessMode()
	if v, ok := p.value("Authenticator"); ok {
		c.Authenticator = v
	}
	c.Authorizer, _ = p.value("Authorizer")
	p.readPartitioner()
	c.JobTrackerHost, _ = p.value("JobTrackerHost")
	c.JobJarFileLocation, _ = p.value("JobJarFileLocation")
	p.int("GCGraceSeconds", &c.GCGraceSeconds)
	c.InitialToken, _ = p.value("InitialToken")
	p.int("RpcTimeoutInMillis", &c.RpcTimeoutInMillis)
	p.int("PhiConvictThreshold", &c.PhiConvictThreshold)
	if c.PhiConvictThreshold < 5 || c.PhiConvictThreshold > 16 {
		p.fail("/Storage/PhiConvictThreshold", "PhiConvictThreshold must be between 5 and 16")
	}
	p.int("ConcurrentReads", &c.ConcurrentReads)
	if c.ConcurrentReads < 2 {
		p.fail("/Storage/ConcurrentReads", "ConcurrentReads must be at least 2")
	}
	p.int("ConcurrentWrites", &c.ConcurrentWrites)
	if c.ConcurrentWrites < 2 {
		p.fail("/Storage/ConcurrentWrites", "ConcurrentWrites must be at least 2")
	}
	p.double("FlushDataBufferSizeInMB", &c.FlushDataBufferSizeInMB)
	p.double("FlushIndexBufferSizeInMB", &c.FlushIndexBufferSizeInMB)
	p.int("SlicedBufferSizeInKB", &c.SlicedBufferSizeInKB)
	p.int("BinaryMemtableThroughputInMB", &c.BinaryMemtableThroughputInMB)
	p.int("StoragePort", &c.StoragePort)
	if v, ok := p.value("ListenAddress"); ok {
		if v == "0.0.0.0" {
			p.fail("/Storage/ListenAddress", "ListenAddress must be a single interface.  See http://wiki.apache.org/cassandra/FAQ#cant_listen_on_ip_any")
		}
		c.ListenAddress = v
	}
	c.ThriftAddress, _ = p.value("ThriftAddress")
	p.int("ThriftPort", &c.ThriftPort)
	p.bool("ThriftFramedTransport", "ThriftFramedTransport", &c.ThriftFramedTransport)
	p.bool("SnapshotBeforeCompaction", "SnapshotBeforeCompaction", &c.SnapshotBeforeCompaction)
	p.bool("AutoBootstrap", "AutoBootstrap", &c.AutoBootstrap)
	p.int("MemtableFlushAfterMinutes", &c.MemtableFlushAfterMinutes)
	p.int("MemtableThroughputInMB", &c.MemtableThroughputInMB)
	p.double("MemtableOperationsInMillions", &c.MemtableOperationsInMillions)
	if c.MemtableOperationsInMillions <= 0 {
		p.fail("/Storage/MemtableOperationsInMillions", "Memtable object count must be a positive double")
	}
	if v, ok := p.value("DoConsistencyChecksBoolean"); ok {
		// Boolean.parseBoolean: anything but "true" is false, never an error.
		c.DoConsistencyChecksBoolean = strings.EqualFold(v, "true")
	}
	p.int("ColumnIndexSizeInKB", &c.ColumnIndexSizeInKB)
	p.readRowWarningThreshold()
	p.readDirectories()
	p.int("CommitLogRotationThresholdInMB", &c.CommitLogRotationThresholdInMB)
	p.bool("HintedHandoffEnabled", "HintedHandoff", &c.HintedHandoffEnabled)
	p.int("IndexInterval", &c.IndexInterval)
	if c.IndexInterval <= 0 {
		p.fail("/Storage/IndexInterval", "Index Interval must be a positive, non-zero integer.")
	}
	p.readKeyspaces()
	p.readSeeds()
	p.requireDirectories()
	if c.ClusterName == "" {
		p.fail("/Storage/ClusterName", "Missing required directive ClusterName")
	}
	p.readServer()
	p.readClientEncryption()
}

// scanTopLevel fills Config.Ignored and warns about a repeated element, of
// which 0.6 (and thriftd) read only the first.
func (p *parser) scanTopLevel() {
	seen := map[string]bool{}
	for _, e := range p.root.children() {
		switch {
		case !topLevel[e.name]:
			if !seen[e.name] {
				p.c.Ignored = append(p.c.Ignored, e.name)
			}
		case seen[e.name] && !repeatable[e.name]:
			p.warn("/Storage/%s appears more than once; only the first is read", e.name)
		}
		seen[e.name] = true
	}
}

func (p *parser) warn(format string, args ...any) {
	p.c.Warnings = append(p.c.Warnings, fmt.Sprintf(format, args...))
}

// value returns the text of the first /Storage/<name> element and whether
// it counts as present: 0.6's getNodeValue returned null for "".
func (p *parser) value(name string) (string, bool) {
	return childValue(p.root, name)
}

func childValue(parent *element, name string) (string, bool) {
	for _, e := range parent.children() {
		if e.name == name {
			v := e.stringValue()
			return v, v != ""
		}
	}
	return "", false
}

// int reads /Storage/<name> as Integer.parseInt into dst, if present.
func (p *parser) int(name string, dst *int) {
	v, ok := p.value(name)
	if !ok || p.err != nil {
		return
	}
	n, err := parseJavaInt(v, 32)
	if err != nil {
		p.fail("/Storage/"+name, "%s", err)
		return
	}
	*dst = int(n)
}

// double reads /Storage/<name> as Double.parseDouble into dst, if present.
func (p *parser) double(name string, dst *float64) {
	v, ok := p.value(name)
	if !ok || p.err != nil {
		return
	}
	f, err := parseJavaDouble(v)
	if err != nil {
		p.fail("/Storage/"+name, "%s", err)
		return
	}
	*dst = f
}

// bool reads /Storage/<name> as true or false in any case, if present.
// label is the name 0.6's message used, which is not always the element's.
func (p *parser) bool(name, label string, dst *bool) {
	v, ok := p.value(name)
	if !ok || p.err != nil {
		return
	}
	switch {
	case strings.EqualFold(v, "true"):
		*dst = true
	case strings.EqualFold(v, "false"):
		*dst = false
	default:
		p.fail("/Storage/"+name, "Unrecognized value for %s.  Use 'true' or 'false'.", label)
	}
}

func (p *parser) readCommitLogSync() {
	c := p.c
	v, ok := p.value("CommitLogSync")
	switch {
	case !ok:
		p.fail("/Storage/CommitLogSync", "Missing required directive CommitLogSync")
		return
	case v != "periodic" && v != "batch":
		p.fail("/Storage/CommitLogSync", "CommitLogSync must be either 'periodic' or 'batch'")
		return
	}
	c.CommitLogSync = v
	period, hasPeriod := p.value("CommitLogSyncPeriodInMS")
	window, hasWindow := p.value("CommitLogSyncBatchWindowInMS")
	if v == "batch" {
		// 0.6 turned a missing window into the same message as a bad one.
		f, err := parseJavaDouble(window)
		if !hasWindow || err != nil {
			p.fail("/Storage/CommitLogSyncBatchWindowInMS", "Unrecognized value for CommitLogSyncBatchWindowInMS.  Double expected.")
			return
		}
		if hasPeriod {
			p.fail("/Storage/CommitLogSyncPeriodInMS", "Batch sync specified, but CommitLogSyncPeriodInMS found.  Only specify CommitLogSyncBatchWindowInMS when using batch sync.")
			return
		}
		c.CommitLogSyncBatchWindowInMS = f
		return
	}
	n, err := parseJavaInt(period, 32)
	if !hasPeriod || err != nil {
		p.fail("/Storage/CommitLogSyncPeriodInMS", "Unrecognized value for CommitLogSyncPeriodInMS.  Integer expected.")
		return
	}
	if hasWindow {
		p.fail("/Storage/CommitLogSyncBatchWindowInMS", "Periodic sync specified, but CommitLogSyncBatchWindowInMS found.  Only specify CommitLogSyncPeriodInMS when using periodic sync.")
		return
	}
	c.CommitLogSyncPeriodInMS = int(n)
}

func (p *parser) readDiskAccessMode() {
	if p.err != nil {
		return
	}
	v, ok := p.value("DiskAccessMode")
	switch {
	case !ok:
		// 0.6 died with a NullPointerException here.
		p.fail("/Storage/DiskAccessMode", "Missing required directive DiskAccessMode")
	case v == "auto" || v == "mmap" || v == "mmap_index_only" || v == "standard":
		p.c.DiskAccessMode = v
	default:
		p.fail("/Storage/DiskAccessMode", "DiskAccessMode must be either 'auto', 'mmap', 'mmap_index_only', or 'standard'")
	}
}

func (p *parser) readPartitioner() {
	if p.err != nil {
		return
	}
	v, ok := p.value("Partitioner")
	if !ok {
		p.fail("/Storage/Partitioner", "Missing partitioner directive /Storage/Partitioner")
		return
	}
	if !strings.Contains(v, ".") {
		v = partitionerPackage + v
	}
	p.c.Partitioner = v
}

func (p *parser) readRowWarningThreshold() {
	v, ok := p.value("RowWarningThresholdInMB")
	if !ok || p.err != nil {
		return
	}
	n, err := parseJavaInt(v, 64)
	if err != nil {
		p.fail("/Storage/RowWarningThresholdInMB", "%s", err)
		return
	}
	// 0.6 checked the value in bytes, after a multiplication that wraps
	// around exactly as Go's int64 does, so huge values fail as they did.
	if n*1024*1024 <= 0 {
		p.fail("/Storage/RowWarningThresholdInMB", "Row warning threshold must be a positive integer")
		return
	}
	p.c.RowWarningThresholdInMB = n
}

// listValues returns the text of every /Storage/<outer>/<inner> element,
// across every <outer>, in document order, as 0.6's node-set XPath did.
func (p *parser) listValues(outer, inner string) []string {
	var out []string
	for _, o := range p.root.children() {
		if o.name != outer {
			continue
		}
		for _, e := range o.children() {
			if e.name != inner {
				p.warn("/Storage/%s/%s is not read; ignored", outer, e.name)
				continue
			}
			v := e.stringValue()
			if v == "" {
				// 0.6 died with a NullPointerException here.
				p.fail(fmt.Sprintf("/Storage/%s/%s[%d]", outer, inner, len(out)+1), "%s must not be empty", inner)
				return nil
			}
			out = append(out, v)
		}
	}
	return out
}

func (p *parser) readDirectories() {
	if p.err != nil {
		return
	}
	c := p.c
	c.DataFileDirectories = p.listValues("DataFileDirectories", "DataFileDirectory")
	c.CommitLogDirectory, _ = p.value("CommitLogDirectory")
	c.SavedCachesDirectory, _ = p.value("SavedCachesDirectory")
	for _, d := range c.DataFileDirectories {
		// Compared as strings, as 0.6 did: "a" and "a/" differ.
		if d == c.CommitLogDirectory {
			p.fail("/Storage/CommitLogDirectory", "CommitLogDirectory must not be the same as any DataFileDirectory")
			return
		}
	}
}

func (p *parser) readSeeds() {
	if p.err != nil {
		return
	}
	p.c.Seeds = p.listValues("Seeds", "Seed")
	if p.err == nil && len(p.c.Seeds) == 0 {
		p.fail("/Storage/Seeds", "A minimum of one seed is required.")
	}
}

// requireDirectories is 0.6's createAllDirectories, less the creating.
func (p *parser) requireDirectories() {
	c := p.c
	switch {
	case len(c.DataFileDirectories) == 0:
		p.fail("/Storage/DataFileDirectories", "At least one DataFileDirectory must be specified")
	case c.CommitLogDirectory == "":
		p.fail("/Storage/CommitLogDirectory", "CommitLogDirectory must be specified")
	case c.SavedCachesDirectory == "":
		p.fail("/Storage/SavedCachesDirectory", "SavedCachesDirectory must be specified")
	}
}

// readServer reads thriftd's own elements, which 0.6 would have ignored.
func (p *parser) readServer() {
	s := &p.c.Server
	if n, ok := p.serverInt("ThriftMaxMessageLengthInMB", true); ok {
		s.MaxMessageSize = int64(n) << 20
	}
	if n, ok := p.serverInt("ThriftMaxConnections", false); ok {
		s.MaxConnections = n
	}
	if n, ok := p.serverInt("ThriftIdleTimeoutInSeconds", false); ok {
		s.IdleTimeout = time.Duration(n) * time.Second
	}
	if n, ok := p.serverInt("ThriftRequestTimeoutInSeconds", false); ok {
		s.RequestTimeout = time.Duration(n) * time.Second
	}
	if n, ok := p.serverInt("ThriftTLSPort", false); ok {
		if n > 65535 {
			p.fail("/Storage/ThriftTLSPort", "ThriftTLSPort must be a port number (0-65535)")
			return
		}
		p.c.ThriftTLSPort, p.c.HasThriftTLSPort = n, true
	}
}

// serverInt reads /Storage/<name> as an int, if present: one that is at
// least 1 when positive is set, else at least 0 (0 meaning "no limit").
func (p *parser) serverInt(name string, positive bool) (int, bool) {
	v, ok := p.value(name)
	if !ok || p.err != nil {
		return 0, false
	}
	n, err := parseJavaInt(v, 32)
	switch {
	case err != nil:
		p.fail("/Storage/"+name, "%s", err)
	case positive && n < 1:
		p.fail("/Storage/"+name, "%s must be a positive integer", name)
	case n < 0:
		p.fail("/Storage/"+name, "%s must be 0 or more", name)
	default:
		return int(n), true
	}
	return 0, false
}
