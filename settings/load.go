package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/config"
)

// Effective is a resolved configuration: the settings after every layer,
// the storage configuration they serve, and where each value came from.
type Effective struct {
	Settings
	// File is the configuration file named on the command line (-config):
	// a thriftd.yaml, or the storage-conf.xml itself.
	File string
	// FileIsYAML is true when File is a thriftd.yaml.
	FileIsYAML bool
	// Storage is storage_conf as read by the config package, with its
	// server settings (Storage.Server) and sync mode replaced by the
	// effective ones, so that whoever reads it sees what is served.
	Storage *config.Config

	origins map[string]Origin
}

// Origin returns where the setting with this key (as in thriftd.yaml,
// e.g. "limits.max_connections") got its value.
func (e *Effective) Origin(key string) Origin { return e.origins[key] }

// Load reads the configuration file at path, a thriftd.yaml or a Cassandra
// 0.6 storage-conf.xml (told apart by content), and the storage-conf.xml a
// thriftd.yaml names, and returns the effective settings without flags. It
// reads files only: nothing is created, dialled or listened on. Other
// commands (thriftd-tool, thriftd-cli) use it to find thriftd's addresses
// (Listen, Admin.Listen) in the file thriftd serves.
func Load(path string) (*Effective, error) { return Resolve(path, nil) }

// Resolve is Load with flags on top (nil: none). Each setting takes the
// first value found in: the flags; thriftd.yaml; storage-conf.xml, for the
// settings it has; the setting's default. The result is checked as a whole
// (Validate); an error names the file and line, or the flag, at fault.
func Resolve(path string, flags *Flags) (*Effective, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: cannot read the configuration file: %w", path, err)
	}
	e := &Effective{Settings: Defaults(), File: path, origins: map[string]Origin{}}
	var fromYAML []assignment
	storage := Origin{Layer: CommandLine, Flag: "config"}
	e.StorageConf = path
	if !IsXML(data, path) {
		e.FileIsYAML = true
		if fromYAML, err = readYAML(data, path); err != nil {
			return nil, err
		}
		e.StorageConf = filepath.Join(filepath.Dir(path), fieldByKey("storage_conf").def)
		storage = Origin{}
		for _, a := range fromYAML {
			if a.f.key == "storage_conf" {
				e.StorageConf, storage = a.v.String(), a.origin
			}
		}
	}
	e.origins["storage_conf"] = storage
	// thriftd serves a file without keyspaces, which 0.6 refused, and a
	// thriftd.yaml without any (storage_conf: ""): clients create
	// keyspaces through the 19.x API.
	if e.NoStorageConf() {
		e.Storage = config.Builtin()
	} else if e.Storage, err = config.LoadWith(e.StorageConf, config.Options{AllowNoKeyspaces: true}); err != nil {
		if storage.Layer == YAMLFile {
			return nil, fmt.Errorf("%w (storage_conf, %s)", err, storage)
		}
		if storage.Layer == Default {
			return nil, fmt.Errorf("%w (storage_conf, by default beside %s)", err, path)
		}
		return nil, err
	}

	layers := [][]assignment{fromStorage(e.Storage), fromYAML}
	if flags != nil {
		layers = append(layers, flags.set)
	}
	for _, layer := range layers {
		for _, a := range layer {
			a.f.value(&e.Settings).Set(a.v)
			e.origins[a.f.key] = a.origin
		}
	}
	if err := e.Validate(); err != nil {
		return nil, err
	}
	e.applyToStorage()
	return e, nil
}

// NoStorageConf reports whether thriftd.yaml names no storage-conf.xml
// (storage_conf: ""): thriftd then starts with the built-in configuration
// (config.Builtin), which has no keyspace.
func (e *Effective) NoStorageConf() bool {
	return e.FileIsYAML && e.StorageConf == "" && e.origins["storage_conf"].Layer == YAMLFile
}

// IsXML tells a storage-conf.xml from a thriftd.yaml by content: an XML
// document starts with "<" (after an optional byte order mark and white
// space), which a YAML mapping cannot. A file with no content at all is
// told by its name: XML when it ends in .xml (and is then refused as
// malformed), else YAML (holding no settings).
func IsXML(data []byte, path string) bool {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) == 0 {
		return strings.EqualFold(filepath.Ext(path), ".xml")
	}
	return data[0] == '<'
}

// fromStorage is the storage-conf.xml layer: the settings 0.6's file has,
// each with the element it comes from. Server settings the file leaves out
// are at their defaults there, and keep the origin "default".
func fromStorage(c *config.Config) []assignment {
	var out []assignment
	add := func(key, element string, v any) {
		f := fieldByKey(key)
		if f == nil {
			panic("settings: storage-conf.xml layer names an unknown key " + key)
		}
		out = append(out, assignment{f, reflect.ValueOf(v).Convert(f.typ),
			Origin{Layer: StorageConf, File: c.Path, Element: element}})
	}
	host, elements := c.ThriftAddress, "ThriftAddress, ThriftPort"
	if host == "" {
		host, elements = c.ListenAddress, "ListenAddress, ThriftPort"
	}
	if host == "" {
		host, elements = "localhost", "ThriftPort"
	}
	add("listen", elements, net.JoinHostPort(host, strconv.Itoa(c.ThriftPort)))
	if c.HasThriftTLSPort {
		add("tls_listen", strings.Replace(elements, "ThriftPort", "ThriftTLSPort", 1), net.JoinHostPort(host, strconv.Itoa(c.ThriftTLSPort)))
	}
	add("data", "DataFileDirectory", c.DataFileDirectories[0])
	add("sync", "CommitLogSync", c.CommitLogSync)
	if c.CommitLogSync == "periodic" {
		add("sync_period", "CommitLogSyncPeriodInMS", time.Duration(c.CommitLogSyncPeriodInMS)*time.Millisecond)
	}
	dir := filepath.Dir(c.Path)
	add("auth.authenticator", "Authenticator", c.Authenticator)
	if c.Authorizer != "" {
		add("auth.authorizer", "Authorizer", c.Authorizer)
	}
	add("auth.passwd_file", "its directory", filepath.Join(dir, "passwd.properties"))
	add("auth.access_file", "its directory", filepath.Join(dir, "access.properties"))

	if ce := c.ClientEncryption; ce != nil {
		const k, e = "client_encryption_options.", "ClientEncryptionOptions/"
		for name, v := range map[string]any{
			"Enabled": ce.Enabled, "Optional": ce.Optional, "RequireClientAuth": ce.RequireClientAuth,
			"Keystore": ce.Keystore, "KeystorePassword": ce.KeystorePassword,
			"Truststore": ce.Truststore, "TruststorePassword": ce.TruststorePassword,
			"Protocol": ce.Protocol, "StoreType": ce.StoreType, "CipherSuites": ce.CipherSuites,
		} {
			if ce.Present[name] {
				add(k+yamlName(name), e+name, v)
			}
		}
		if ce.Present["HandshakeTimeoutInSeconds"] {
			add(k+"handshake_timeout", e+"HandshakeTimeoutInSeconds", ce.HandshakeTimeout)
		}
	}

	def := config.DefaultServer()
	if c.Server.MaxMessageSize != def.MaxMessageSize {
		add("limits.max_message_mb", "ThriftMaxMessageLengthInMB", int(c.Server.MaxMessageSize>>20))
	}
	if c.Server.MaxConnections != def.MaxConnections {
		add("limits.max_connections", "ThriftMaxConnections", c.Server.MaxConnections)
	}
	if c.Server.IdleTimeout != def.IdleTimeout {
		add("limits.idle_timeout", "ThriftIdleTimeoutInSeconds", c.Server.IdleTimeout)
	}
	if c.Server.RequestTimeout != def.RequestTimeout {
		add("limits.request_timeout", "ThriftRequestTimeoutInSeconds", c.Server.RequestTimeout)
	}
	return out
}

// yamlName is the thriftd.yaml key of a storage-conf.xml element name:
// KeystorePassword is keystore_password.
func yamlName(element string) string {
	var b strings.Builder
	for i, r := range element {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// applyToStorage writes the effective server settings and sync mode into
// Storage, the configuration the rest of thriftd is given.
func (e *Effective) applyToStorage() {
	srv := &e.Storage.Server
	srv.MaxMessageSize = int64(e.Limits.MaxMessageMB) << 20
	srv.MaxConnections = e.Limits.MaxConnections
	srv.IdleTimeout = e.Limits.IdleTimeout
	srv.RequestTimeout = e.Limits.RequestTimeout
	srv.ShutdownTimeout = e.Limits.ShutdownTimeout
	srv.PasswdFile = e.Auth.PasswdFile
	srv.AccessFile = e.Auth.AccessFile
	srv.PasswdMode = e.Auth.PasswdMode
	e.Storage.Authenticator = auth.ClassName(e.Auth.Authenticator)
	e.Storage.Authorizer = auth.ClassName(e.Auth.Authorizer)
	e.Storage.CommitLogSync = e.Sync
	if e.Sync == "periodic" {
		e.Storage.CommitLogSyncPeriodInMS = int(e.SyncPeriod / time.Millisecond)
	}
}
