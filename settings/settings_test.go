package settings

import (
	"flag"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/config"
	"github.com/thriftd/thriftd/internal/testenv"
)

// storageConf writes the repository's storage-conf.xml into dir with extra
// elements before </Storage>, and returns its path.
func storageConf(t *testing.T, dir, extra string) string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "storage-conf.xml"))
	if err != nil {
		t.Fatal(err)
	}
	text = []byte(strings.Replace(string(text), "</Storage>", extra+"\n</Storage>", 1))
	return write(t, dir, "storage-conf.xml", string(text))
}

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// flags parses a command line of settings flags.
func flags(t *testing.T, args ...string) *Flags {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fl := AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fl
}

func TestDefaultsAreTheStorageConfDefaults(t *testing.T) {
	d, srv := Defaults(), config.DefaultServer()
	if int64(d.Limits.MaxMessageMB)<<20 != srv.MaxMessageSize || d.Limits.MaxConnections != srv.MaxConnections ||
		d.Limits.IdleTimeout != srv.IdleTimeout || d.Limits.RequestTimeout != srv.RequestTimeout ||
		d.Limits.ShutdownTimeout != srv.ShutdownTimeout || d.Auth.PasswdMode != srv.PasswdMode {
		t.Errorf("settings defaults %+v %+v differ from config.DefaultServer %+v", d.Limits, d.Auth, srv)
	}
	if d.Admin.Listen != "127.0.0.1:9161" || d.Log.Level != "info" || d.SyncPeriod != 10*time.Second || d.Cassandra.Hosts != nil {
		t.Errorf("defaults: %+v", d)
	}
}

// TestPrecedence checks flag > thriftd.yaml > storage-conf.xml > default,
// setting by setting, and that each value's origin says so.
func TestPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name       string
		xml, yaml  string // extra storage-conf.xml elements; thriftd.yaml ("": storage-conf.xml alone)
		flags      []string
		key        string
		want       any
		wantOrigin string
	}{
		{"default", "", "", nil, "limits.max_connections", 4096, "default"},
		{"default under yaml", "", "log: {format: json}", nil, "log.level", "info", "default"},
		{"xml", "<ThriftMaxConnections>100</ThriftMaxConnections>", "", nil, "limits.max_connections", 100, "DIR/storage-conf.xml: ThriftMaxConnections"},
		{"xml under yaml", "<ThriftMaxConnections>100</ThriftMaxConnections>", "log: {level: debug}", nil, "limits.max_connections", 100, "DIR/storage-conf.xml: ThriftMaxConnections"},
		{"yaml over xml", "<ThriftMaxConnections>100</ThriftMaxConnections>", "limits:\n  max_connections: 200\n", nil, "limits.max_connections", 200, "DIR/thriftd.yaml:2:20"},
		{"yaml over default", "", "limits: {max_connections: 0}", nil, "limits.max_connections", 0, "DIR/thriftd.yaml:1:27"},
		{"flag over yaml", "<ThriftMaxConnections>100</ThriftMaxConnections>", "limits:\n  max_connections: 200\n", []string{"-max-connections", "300"}, "limits.max_connections", 300, "-max-connections"},
		{"flag over xml", "<ThriftMaxConnections>100</ThriftMaxConnections>", "", []string{"-max-connections", "300"}, "limits.max_connections", 300, "-max-connections"},
		{"last flag wins", "", "", []string{"-max-connections", "1", "-max-connections", "2"}, "limits.max_connections", 2, "-max-connections"},
		{"xml listen", "", "", nil, "listen", "localhost:9160", "DIR/storage-conf.xml: ThriftAddress, ThriftPort"},
		{"yaml listen", "", "listen: 127.0.0.1:9999", nil, "listen", "127.0.0.1:9999", "DIR/thriftd.yaml:1:9"},
		{"flag listen", "", "listen: 127.0.0.1:9999", []string{"-listen", ":1"}, "listen", ":1", "-listen"},
		{"xml sync", "", "", nil, "sync_period", 10 * time.Second, "DIR/storage-conf.xml: CommitLogSyncPeriodInMS"},
		{"yaml sync", "", "sync: batch", nil, "sync", "batch", "DIR/thriftd.yaml:1:7"},
		{"xml timeout", "<ThriftIdleTimeoutInSeconds>90</ThriftIdleTimeoutInSeconds>", "", nil, "limits.idle_timeout", 90 * time.Second, "DIR/storage-conf.xml: ThriftIdleTimeoutInSeconds"},
		{"yaml timeout", "<ThriftIdleTimeoutInSeconds>90</ThriftIdleTimeoutInSeconds>", "limits: {idle_timeout: 1m30s500ms}", nil, "limits.idle_timeout", 90*time.Second + 500*time.Millisecond, "DIR/thriftd.yaml:1:24"},
		{"yaml null keeps xml", "<ThriftIdleTimeoutInSeconds>90</ThriftIdleTimeoutInSeconds>", "limits: {idle_timeout: ~}", nil, "limits.idle_timeout", 90 * time.Second, "DIR/storage-conf.xml: ThriftIdleTimeoutInSeconds"},
		{"flag list", "", "", []string{"-cassandra", "a:1, b:2,"}, "cassandra.hosts", []string{"a:1", "b:2"}, "-cassandra"},
		{"yaml list", "", "cassandra:\n  hosts: [a:1, b:2]\n", nil, "cassandra.hosts", []string{"a:1", "b:2"}, "DIR/thriftd.yaml:2:10"},
		{"yaml list as a string", "", "cassandra: {hosts: 'a:1,b:2'}", nil, "cassandra.hosts", []string{"a:1", "b:2"}, "DIR/thriftd.yaml:1:20"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := storageConf(t, dir, tc.xml)
			if tc.yaml != "" {
				path = write(t, dir, "thriftd.yaml", tc.yaml)
			}
			eff, err := Resolve(path, flags(t, tc.flags...))
			if err != nil {
				t.Fatal(err)
			}
			f := fieldByKey(tc.key)
			if got := f.value(&eff.Settings).Interface(); !reflect.DeepEqual(got, reflect.ValueOf(tc.want).Convert(f.typ).Interface()) {
				t.Errorf("%s = %v, want %v", tc.key, got, tc.want)
			}
			if got := strings.ReplaceAll(eff.Origin(tc.key).String(), dir, "DIR"); got != tc.wantOrigin {
				t.Errorf("origin of %s = %q, want %q", tc.key, got, tc.wantOrigin)
			}
		})
	}
}

// TestEffectiveSettingsReachTheStorageConfig checks that Storage, which the
// rest of thriftd reads, carries the effective values.
func TestEffectiveSettingsReachTheStorageConfig(t *testing.T) {
	dir := t.TempDir()
	storageConf(t, dir, "<ThriftMaxConnections>100</ThriftMaxConnections>")
	path := write(t, dir, "thriftd.yaml", "sync: periodic\nsync_period: 250ms\nlimits:\n  max_message_mb: 3\n  shutdown_timeout: 5s\nauth:\n  passwd_mode: MD5\n  passwd_file: users\n")
	eff, err := Resolve(path, flags(t, "-request-timeout", "2s"))
	if err != nil {
		t.Fatal(err)
	}
	want := config.Server{MaxMessageSize: 3 << 20, MaxConnections: 100, RequestTimeout: 2 * time.Second,
		ShutdownTimeout: 5 * time.Second, PasswdFile: filepath.Join(dir, "users"),
		AccessFile: filepath.Join(dir, "access.properties"), PasswdMode: "MD5"}
	if eff.Storage.Server != want {
		t.Errorf("Storage.Server = %+v\nwant %+v", eff.Storage.Server, want)
	}
	if eff.Storage.CommitLogSync != "periodic" || eff.Storage.CommitLogSyncPeriodInMS != 250 {
		t.Errorf("Storage sync: %s %d", eff.Storage.CommitLogSync, eff.Storage.CommitLogSyncPeriodInMS)
	}
}

// TestYAMLErrorsNameKeyAndLine covers what stops a thriftd.yaml: each error
// names the file, the line and column, and the key.
func TestYAMLErrorsNameKeyAndLine(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"lisen: :1", `F:1:1: unknown key "lisen" (did you mean "listen"?)`},
		{"limits:\n  max_conections: 1\n", `F:2:3: unknown key "limits.max_conections" (did you mean "limits.max_connections"?)`},
		{"max_connections: 1", `F:1:1: unknown key "max_connections" (did you mean "limits.max_connections"?)`},
		{"log:\n  log-level: debug\n", `F:2:3: unknown key "log.log-level" (did you mean "log.level"?)`},
		{"admin:\n  token: x\n", `F:2:3: unknown key "admin.token" (did you mean "admin.token_file"?)`},
		{"replication_factor: 3", `F:1:1: unknown key "replication_factor"`},
		{"limits:\n  max_connections: many\n", `F:2:20: limits.max_connections: want an integer, not "many"`},
		{"limits:\n  max_connections: \"4096\"\n", `F:2:20: limits.max_connections: want an integer, not "4096"`},
		{"limits:\n  max_connections: 99999999999999999999999\n", `F:2:20: limits.max_connections: want an integer, not "99999999999999999999999"`},
		{"limits:\n  max_connections: [1]\n", `F:2:20: limits.max_connections: want an integer, not a list`},
		{"limits:\n  idle_timeout: 30\n", `F:2:17: limits.idle_timeout: want a duration such as 30s or 10m, not "30"`},
		{"limits:\n  idle_timeout: true\n", `F:2:17: limits.idle_timeout: want a duration such as 30s or 10m, not "true"`},
		{"listen: true", `F:1:9: listen: want a string, not "true"`},
		{"listen: {host: a}", `F:1:9: listen: want a string, not a mapping`},
		{"cassandra:\n  hosts: [a:1, {b: 2}]\n", `F:2:10: cassandra.hosts: want a list of strings, not a mapping in it (line 2)`},
		{"limits: 5", `F:1:9: limits: want a section of settings (key: value lines indented below it), not "5"`},
		{"listen: a:1\nlisten: b:2\n", `F:2:1: listen is set twice (first on line 1)`},
		{"- listen", `F:1:1: want settings, one key: value a line, not a list`},
		{"listen: :1\n---\nlisten: :2\n", `F:2: a second YAML document: thriftd.yaml holds one`},
		{"listen: [", `F:1: did not find expected node content`},
		{"limits:\n  max_connections: -1\n", `F:2:20: limits.max_connections: must be 0 or more, not -1`},
		{"log:\n  format: xml\n", `F:2:11: log.format: want text or json, not "xml"`},
		{"storage_conf: nowhere.xml", `DIR/nowhere.xml: cannot read the configuration file: no such file or directory (storage_conf, F:1:15)`},
	} {
		t.Run(tc.yaml, func(t *testing.T) {
			dir := t.TempDir()
			storageConf(t, dir, "")
			path := write(t, dir, "thriftd.yaml", tc.yaml)
			_, err := Load(path)
			if err == nil {
				t.Fatalf("loaded; want %s", tc.want)
			}
			got := strings.ReplaceAll(strings.ReplaceAll(err.Error(), path, "F"), dir, "DIR")
			if got != tc.want {
				t.Errorf("error\n %s\nwant\n %s", got, tc.want)
			}
		})
	}
}

// TestValidation covers the checks beyond types, each naming the flag or
// the line at fault.
func TestValidation(t *testing.T) {
	for _, tc := range []struct {
		yaml  string
		flags []string
		want  string // "" when accepted
	}{
		{"", []string{"-listen", "localhost"}, `-listen: want HOST:PORT, not "localhost"`},
		{"", []string{"-listen", ":99999"}, `-listen: want HOST:PORT with a port number from 0 to 65535, not ":99999"`},
		{"", []string{"-listen", "127.0.0.1:0"}, ""},
		{"", []string{"-max-message-mb", "0"}, "-max-message-mb: want a positive number of MiB, not 0"},
		{"", []string{"-idle-timeout", "-1s"}, "-idle-timeout: must be 0 or more, not -1s"},
		{"", []string{"-sync", "always"}, `-sync: want periodic or batch, not "always"`},
		{"sync_period: 0s", nil, "F:1:14: sync_period: want at least 1ms, not 0s"},
		{"sync: batch\nsync_period: 0s", nil, ""},
		{"", []string{"-passwd-mode", "md5"}, `-passwd-mode: want PLAIN or MD5, not "md5"`},
		{"", []string{"-log-level", "loud"}, `-log-level: want debug, info, warn or error, not "loud"`},
		{"", []string{"-log-level", "DEBUG"}, ""},
		{"", []string{"-data", ""}, "-data: must not be empty"},
		{"", []string{"-admin", "off"}, ""},
		{"admin: {listen: on}", nil, `F:1:17: admin.listen: want HOST:PORT, not "on"`},
		{"", []string{"-pprof", "6060"}, `-pprof: want HOST:PORT, not "6060"`},
		{"cassandra: {username: u}", nil, "F:1:23: cassandra.username: is set, but cassandra.hosts is empty: the Cassandra settings need the Cassandra backend (-cassandra HOST:PORT)"},
		{"", []string{"-cassandra-timeout", "1s"}, "-cassandra-timeout: is set, but cassandra.hosts is empty: the Cassandra settings need the Cassandra backend (-cassandra HOST:PORT)"},
		{"", []string{"-cassandra", "db1"}, `-cassandra: want HOST:PORT, not "db1"`},
		{"", []string{"-cassandra", "db1:0"}, `-cassandra: want HOST:PORT with a port number from 1 to 65535, not "db1:0"`},
		{"", []string{"-cassandra", "db1:9042,db2:9042", "-cassandra-tls-cert", "c.pem"}, "cassandra.tls_key: must be set too: a client certificate needs both tls_cert and tls_key"},
		{"", []string{"-cassandra", "db1:9042", "-cassandra-password-file", "pw"}, "-cassandra-password-file: is set, but cassandra.username is empty"},
		{"", []string{"-cassandra", "db1:9042", "-cassandra-timeout", "0s"}, "-cassandra-timeout: must be positive, not 0s"},
		{"", []string{"-cassandra", "db1:9042", "-cassandra-username", "u", "-cassandra-password-file", "pw",
			"-cassandra-tls-cert", "c", "-cassandra-tls-key", "k", "-cassandra-dc", "dc1", "-cassandra-prefix", "t_"}, ""},
		// A disabled section is not read, as cassandra.yaml's stock one.
		{"client_encryption_options:\n  enabled: false\n  keystore: conf/.keystore\n  protocol: SSLv2", nil, ""},
		{"", []string{"-tls-listen", "127.0.0.1:9443"}, "-tls-listen: is set, but client_encryption_options.enabled is false"},
		{"", []string{"-tls"}, "client_encryption_options.keystore: must be set: enabled needs the server's certificate and key"},
		{"", []string{"-tls", "-tls-keystore", "k.p12", "-tls-require-client-auth"}, "client_encryption_options.truststore: must be set: require_client_auth needs the authorities of client certificates"},
		{"client_encryption_options: {enabled: true, keystore: k.pem, protocol: SSLv3}", nil, `F:1:71: client_encryption_options.protocol: want TLS, TLSv1.3, TLSv1.2, TLSv1.1 or TLSv1, not "SSLv3" (SSLv3 is not offered)`},
		{"", []string{"-tls", "-tls-keystore", "k.pem", "-tls-cipher-suites", "RC4"}, `-tls-cipher-suites: "RC4" is not a cipher suite name (such as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)`},
		{"", []string{"-tls", "-tls-keystore", "k.pem", "-tls-store-type", "JCEKS"}, `-tls-store-type: want PKCS12, PEM or JKS, not "JCEKS"`},
		{"", []string{"-tls", "-tls-keystore", "k.pem", "-tls-handshake-timeout", "0s"}, "-tls-handshake-timeout: must be positive, not 0s"},
		{"", []string{"-tls", "-tls-keystore", "k.pem", "-listen", "127.0.0.1:9160", "-tls-listen", "127.0.0.1:9160"}, "-tls-listen: is listen's address too: the TLS port needs a port of its own, or drop tls_listen to put TLS on listen's port"},
		{"", []string{"-tls", "-tls-keystore", "k.p12", "-tls-require-client-auth", "-tls-truststore", "t.p12", "-tls-listen", ":9443",
			"-tls-cipher-suites", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_DHE_RSA_WITH_AES_128_CBC_SHA", "-tls-store-type", "pkcs12", "-tls-optional"}, ""},
	} {
		t.Run(tc.yaml+strings.Join(tc.flags, " "), func(t *testing.T) {
			dir := t.TempDir()
			path := storageConf(t, dir, "")
			if tc.yaml != "" {
				path = write(t, dir, "thriftd.yaml", tc.yaml)
			}
			_, err := Resolve(path, flags(t, tc.flags...))
			got := ""
			if err != nil {
				got = strings.ReplaceAll(err.Error(), path, "F")
			}
			if got != tc.want {
				t.Errorf("error\n %s\nwant\n %s", got, tc.want)
			}
		})
	}
}

func TestBadFlagValuesAreRefusedByTheFlagParser(t *testing.T) {
	for _, args := range [][]string{{"-max-connections", "many"}, {"-idle-timeout", "30"}, {"-cassandra-timeout", "x"}} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(new(strings.Builder))
		AddFlags(fs)
		if err := fs.Parse(args); err == nil || !strings.Contains(err.Error(), "want ") {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// TestRelativePaths: file names in thriftd.yaml resolve against its
// directory; those in storage-conf.xml and in flags stay relative to the
// working directory.
func TestRelativePaths(t *testing.T) {
	dir := t.TempDir()
	storageConf(t, filepath.Join(dir, "conf"), "")
	yaml := "storage_conf: conf/storage-conf.xml\nauth:\n  access_file: acl\n  passwd_file: /etc/thriftd/passwd\nadmin:\n  listen: off\n  token_file: ../token\n"
	path := write(t, dir, "etc/thriftd.yaml", strings.ReplaceAll(yaml, "conf/", "../conf/"))
	eff, err := Resolve(path, flags(t, "-access", "flag/acl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, got, want string }{
		{"storage_conf", eff.StorageConf, filepath.Join(dir, "conf", "storage-conf.xml")},
		{"the storage configuration read", eff.Storage.Path, filepath.Join(dir, "conf", "storage-conf.xml")},
		{"auth.passwd_file", eff.Auth.PasswdFile, "/etc/thriftd/passwd"},
		{"admin.token_file", eff.Admin.TokenFile, filepath.Join(dir, "token")},
		{"data, from storage-conf.xml", eff.Data, "var/data"},
		{"auth.access_file, from a flag", eff.Auth.AccessFile, "flag/acl"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	eff, err = Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "etc", "acl"); eff.Auth.AccessFile != want {
		t.Errorf("auth.access_file = %q, want %q", eff.Auth.AccessFile, want)
	}
}

// A thriftd.yaml with storage_conf: "" names no storage-conf.xml: thriftd
// starts from the built-in configuration, with no keyspace.
func TestNoStorageConf(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "thriftd.yaml", "storage_conf: \"\"\ndata: d\nlisten: 127.0.0.1:9999\n")
	eff, err := Resolve(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !eff.NoStorageConf() || eff.Storage.Path != config.BuiltinPath || len(eff.Storage.Keyspaces) != 0 {
		t.Fatalf("NoStorageConf %v, storage %s with %d keyspaces", eff.NoStorageConf(), eff.Storage.Path, len(eff.Storage.Keyspaces))
	}
	if eff.Data != filepath.Join(dir, "d") || eff.Listen != "127.0.0.1:9999" {
		t.Errorf("data %q, listen %q", eff.Data, eff.Listen)
	}
	// An XML file given with -config is never "none".
	if _, err := Resolve(write(t, dir, "empty.xml", ""), nil); err == nil {
		t.Error("an empty .xml file was accepted")
	}
}

// storage-conf.xml's <ClientEncryptionOptions> is a layer of
// client_encryption_options, below thriftd.yaml and the flags.
func TestClientEncryptionFromStorageConf(t *testing.T) {
	dir := t.TempDir()
	path := storageConf(t, dir, `<ClientEncryptionOptions>
  <Enabled>true</Enabled>
  <Keystore>conf/keystore.p12</Keystore>
  <KeystorePassword>pw</KeystorePassword>
  <RequireClientAuth>TRUE</RequireClientAuth>
  <Truststore>conf/truststore.p12</Truststore>
  <StoreType>PKCS12</StoreType>
  <CipherSuites><CipherSuite>TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256</CipherSuite><CipherSuite>TLS_RSA_WITH_AES_128_CBC_SHA</CipherSuite></CipherSuites>
</ClientEncryptionOptions>`)
	e, err := Resolve(path, flags(t, "-tls-store-type", "PEM"))
	if err != nil {
		t.Fatal(err)
	}
	want := ClientEncryption{Enabled: true, Keystore: "conf/keystore.p12", KeystorePassword: "pw", RequireClientAuth: true,
		Truststore: "conf/truststore.p12", Protocol: "TLS", StoreType: "PEM", HandshakeTimeout: 10 * time.Second,
		CipherSuites: []string{"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_AES_128_CBC_SHA"}}
	if !reflect.DeepEqual(e.ClientEncryption, want) {
		t.Errorf("got %+v\nwant %+v", e.ClientEncryption, want)
	}
	if o := e.Origin("client_encryption_options.keystore").String(); o != path+": ClientEncryptionOptions/Keystore" {
		t.Errorf("keystore from %s", o)
	}

	for extra, msg := range map[string]string{
		"<ClientEncryptionOptions><Enabled>true</Enabled><Keystore>k</Keystore><Protocol>SSLv3</Protocol></ClientEncryptionOptions>": `F: ClientEncryptionOptions/Protocol: client_encryption_options.protocol: want TLS, TLSv1.3, TLSv1.2, TLSv1.1 or TLSv1, not "SSLv3" (SSLv3 is not offered)`,
		"<ClientEncryptionOptions><Enabled>yes</Enabled></ClientEncryptionOptions>":                                                  "F: /Storage/ClientEncryptionOptions/Enabled: Unrecognized value for Enabled.  Use 'true' or 'false'.",
		"<ClientEncryptionOptions><HandshakeTimeoutInSeconds>0</HandshakeTimeoutInSeconds></ClientEncryptionOptions>":                "F: /Storage/ClientEncryptionOptions/HandshakeTimeoutInSeconds: HandshakeTimeoutInSeconds must be a positive integer",
		"<ThriftTLSPort>9162</ThriftTLSPort>":  "F: ThriftAddress, ThriftTLSPort: tls_listen: is set, but client_encryption_options.enabled is false",
		"<ThriftTLSPort>70000</ThriftTLSPort>": "F: /Storage/ThriftTLSPort: ThriftTLSPort must be a port number (0-65535)",
		"<ThriftTLSPort>x</ThriftTLSPort>":     `F: /Storage/ThriftTLSPort: For input string: "x"`,
	} {
		path := storageConf(t, t.TempDir(), extra)
		_, err := Resolve(path, nil)
		if got := ""; err == nil || strings.ReplaceAll(err.Error(), path, "F") != msg {
			if err != nil {
				got = strings.ReplaceAll(err.Error(), path, "F")
			}
			t.Errorf("%s:\n got %s\nwant %s", extra, got, msg)
		}
	}
}

// <ThriftTLSPort> is tls_listen, on the host of listen, and
// <HandshakeTimeoutInSeconds> client_encryption_options.handshake_timeout.
func TestTLSPortFromStorageConf(t *testing.T) {
	path := storageConf(t, t.TempDir(), `<ThriftTLSPort>9162</ThriftTLSPort>
<ClientEncryptionOptions>
  <Enabled>true</Enabled>
  <Keystore>k.pem</Keystore>
  <HandshakeTimeoutInSeconds>3</HandshakeTimeoutInSeconds>
</ClientEncryptionOptions>`)
	e, err := Resolve(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ := net.SplitHostPort(e.Listen)
	if want := net.JoinHostPort(host, "9162"); e.TLSListen != want {
		t.Errorf("tls_listen %q, want %q (listen %q)", e.TLSListen, want, e.Listen)
	}
	if o := e.Origin("tls_listen").String(); !strings.HasSuffix(o, "ThriftTLSPort") || !strings.HasPrefix(o, path+": ") {
		t.Errorf("tls_listen from %s", o)
	}
	if e.ClientEncryption.HandshakeTimeout != 3*time.Second {
		t.Errorf("handshake_timeout %v", e.ClientEncryption.HandshakeTimeout)
	}
	// The flags still win.
	e, err = Resolve(path, flags(t, "-tls-listen", "127.0.0.1:9200", "-tls-handshake-timeout", "5s"))
	if err != nil {
		t.Fatal(err)
	}
	if e.TLSListen != "127.0.0.1:9200" || e.ClientEncryption.HandshakeTimeout != 5*time.Second {
		t.Errorf("with flags: tls_listen %q, handshake_timeout %v", e.TLSListen, e.ClientEncryption.HandshakeTimeout)
	}
}
