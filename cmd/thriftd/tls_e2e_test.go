package main

import (
	"context"
	"crypto/tls"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/internal/testcerts"
	"github.com/thriftd/thriftd/internal/testenv"
)

func writeTestCerts(t *testing.T) *testcerts.Set {
	t.Helper()
	c, err := testcerts.New("thriftd e2e")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	return c
}

// dialTLS is a framed 0.6 client over TLS.
func dialTLS(addr string, c *testcerts.Set, client ...tls.Certificate) (*cassandra.CassandraClient, func(), error) {
	nc, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: c.Pool(), ServerName: "localhost", Certificates: client})
	if err != nil {
		return nil, nil, err
	}
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	cfg := &thrift.TConfiguration{}
	trans := thrift.NewTFramedTransportConf(thrift.NewTSocketFromConnConf(nc, cfg), cfg)
	return cassandra.NewCassandraClientFactory(trans, thrift.NewTBinaryProtocolFactoryConf(cfg)), func() { trans.Close() }, nil
}

// A cassandra.yaml's client_encryption_options section, copied into
// thriftd.yaml with a PKCS12 keystore and truststore, serves TLS on
// tls_listen beside the plain port, client certificates required.
func TestTLSPortBesidePlain(t *testing.T) {
	c := writeTestCerts(t)
	_, path := configDir(t, yamlOnly+`tls_listen: 127.0.0.1:0
client_encryption_options:
  enabled: true
  optional: false
  keystore: `+c.ServerP12+`
  keystore_password: `+testcerts.Password+`
  require_client_auth: true
  truststore: `+c.TruststoreP12+`
  truststore_password: `+testcerts.Password+`
  protocol: TLS
  store_type: JKS
  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TLS_DHE_RSA_WITH_AES_128_CBC_SHA]
`)
	n := testenv.NewNodeArgs(t, thriftdBin, "-config", path)
	n.Start()
	serving := n.WaitLog(t, time.Second, map[string]string{"msg": "thriftd is serving", "tls": "off", "tls_listen_mode": "on"})
	tlsAddr := testenv.LogValue(serving["tls_listen"])
	n.WaitLog(t, time.Second, map[string]string{"msg": "cipher suites Go does not implement are left out"})

	if err := roundTrip(t, n.Addr); err != nil {
		t.Fatalf("plain port: %v", err)
	}
	client, done, err := dialTLS(tlsAddr, c, c.Client)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	got, err := client.Get(context.Background(), "Keyspace1", "k", &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}, cassandra.ConsistencyLevel_ONE)
	if err != nil || string(got.Column.Value) != "v" {
		t.Fatalf("over TLS: %v, %v", got, err)
	}
	// Without a client certificate, and in plain Thrift, the TLS port
	// refuses.
	if anon, done, err := dialTLS(tlsAddr, c); err == nil {
		if _, err := anon.DescribeVersion(context.Background()); err == nil {
			t.Error("a client without a certificate was served")
		}
		done()
	}
	if err := roundTrip(t, tlsAddr); err == nil {
		t.Error("a plain client was served on the TLS port")
	}
	n.WaitLog(t, 3*time.Second, map[string]string{"msg": "connection refused: TLS handshake failed"})
}

// With TLS and no tls_listen, listen's port speaks TLS only (PEM stores,
// from flags).
func TestTLSOnly(t *testing.T) {
	c := writeTestCerts(t)
	_, path := configDir(t, yamlOnly)
	n := testenv.NewNodeArgs(t, thriftdBin, "-config", path, "-tls", "-tls-keystore", c.ServerPEM)
	n.Start()
	n.WaitLog(t, time.Second, map[string]string{"msg": "thriftd is serving", "tls": "on"})
	client, done, err := dialTLS(n.Addr, c)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if v, err := client.DescribeVersion(context.Background()); err != nil || v == "" {
		t.Fatalf("describe_version over TLS: %q, %v", v, err)
	}
	if err := roundTrip(t, n.Addr); err == nil {
		t.Error("a plain client was served on a TLS-only port")
	}
}

// A keystore that cannot be used stops start-up, naming the setting and
// the line it came from, before the data directory is touched.
func TestBadKeystoreStopsStartUp(t *testing.T) {
	c := writeTestCerts(t)
	jks := filepath.Join(t.TempDir(), "keystore.jks")
	os.WriteFile(jks, []byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2, 0, 0, 0, 0}, 0o600)
	for _, tc := range []struct{ section, want string }{
		{"  keystore: " + c.ServerP12 + "\n  keystore_password: wrong\n", ":13:22: client_encryption_options.keystore_password: does not open " + c.ServerP12},
		{"  keystore: " + jks + "\n", ":12:13: client_encryption_options.keystore: " + jks + " is a JKS store, which thriftd cannot read; convert it to PKCS12 with `keytool -importkeystore"},
		{"  keystore: missing.pem\n", ":12:13: client_encryption_options.keystore: open "},
	} {
		dir, path := configDir(t, yamlOnly+"client_encryption_options:\n  enabled: true\n"+tc.section)
		_, stderr, err := runBinary(t, "-config", path)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("exit: %v, want status 1", err)
		}
		if !strings.Contains(stderr, path+tc.want) {
			t.Errorf("stderr %s\nwant   %s", stderr, path+tc.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "yamldata")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the data directory was created: %v", err)
		}
	}
}

// storageConfWith is the repository's storage-conf.xml, its Thrift port on
// 127.0.0.1, with extra before </Storage>, written into a new directory.
func storageConfWith(t *testing.T, extra string) string {
	t.Helper()
	xml, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "storage-conf.xml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(xml), "<ThriftAddress>localhost</ThriftAddress>", "<ThriftAddress>127.0.0.1</ThriftAddress>", 1)
	text = strings.Replace(text, "</Storage>", extra+"\n</Storage>", 1)
	path := filepath.Join(t.TempDir(), "storage-conf.xml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A storage-conf.xml alone turns TLS on, with <ClientEncryptionOptions>,
// and opens the TLS port beside the plain one, with <ThriftTLSPort>.
func TestTLSFromStorageConf(t *testing.T) {
	c := writeTestCerts(t)
	xml := storageConfWith(t, `<ThriftTLSPort>0</ThriftTLSPort>
<ClientEncryptionOptions>
  <Enabled>true</Enabled>
  <Keystore>`+c.ServerP12+`</Keystore>
  <KeystorePassword>`+testcerts.Password+`</KeystorePassword>
  <RequireClientAuth>true</RequireClientAuth>
  <Truststore>`+c.CAPEM+`</Truststore>
  <HandshakeTimeoutInSeconds>5</HandshakeTimeoutInSeconds>
</ClientEncryptionOptions>`)
	n := testenv.NewNode(t, thriftdBin, xml)
	n.Start()
	serving := n.WaitLog(t, time.Second, map[string]string{"msg": "thriftd is serving", "tls": "off", "tls_listen_mode": "on"})
	tlsAddr := testenv.LogValue(serving["tls_listen"])
	if !strings.HasPrefix(tlsAddr, "127.0.0.1:") {
		t.Errorf("tls_listen %s, want ThriftAddress's host", tlsAddr)
	}
	if err := roundTrip(t, n.Addr); err != nil {
		t.Fatalf("plain port: %v", err)
	}
	client, done, err := dialTLS(tlsAddr, c, c.Client)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if v, err := client.DescribeVersion(context.Background()); err != nil || v == "" {
		t.Fatalf("describe_version over TLS: %q, %v", v, err)
	}
	if anon, done, err := dialTLS(tlsAddr, c); err == nil {
		if _, err := anon.DescribeVersion(context.Background()); err == nil {
			t.Error("a client without a certificate was served")
		}
		done()
	}
}

// A keystore that cannot be used, or an unknown protocol, in
// storage-conf.xml stops start-up with the file and the element named.
func TestBadTLSInStorageConfStopsStartUp(t *testing.T) {
	c := writeTestCerts(t)
	missing := filepath.Join(t.TempDir(), "missing.p12")
	for _, tc := range []struct{ children, want string }{
		{"<Keystore>" + c.ServerP12 + "</Keystore><KeystorePassword>wrong</KeystorePassword>",
			": ClientEncryptionOptions/KeystorePassword: client_encryption_options.keystore_password: does not open " + c.ServerP12},
		{"<Keystore>" + missing + "</Keystore>",
			": ClientEncryptionOptions/Keystore: client_encryption_options.keystore: open " + missing + ": no such file or directory"},
		{"<Keystore>" + c.ServerPEM + "</Keystore><Protocol>SSLv3</Protocol>",
			": ClientEncryptionOptions/Protocol: client_encryption_options.protocol: want TLS, TLSv1.3, TLSv1.2, TLSv1.1 or TLSv1, not "},
		{"<Keystore>" + c.ServerPEM + "</Keystore><RequireClientAuth>true</RequireClientAuth>",
			": ClientEncryptionOptions/RequireClientAuth: client_encryption_options.truststore: must be set: require_client_auth needs"},
		{"<Truststore>" + c.CAPEM + "</Truststore>",
			": ClientEncryptionOptions/Enabled: client_encryption_options.keystore: must be set: enabled needs"},
	} {
		xml := storageConfWith(t, "<ClientEncryptionOptions><Enabled>true</Enabled>"+tc.children+"</ClientEncryptionOptions>")
		_, stderr, err := runBinary(t, "-config", xml, "-listen", "127.0.0.1:0", "-data", filepath.Join(t.TempDir(), "data"))
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			t.Errorf("exit: %v, want status 1", err)
		}
		if !strings.Contains(stderr, xml+tc.want) {
			t.Errorf("stderr %s\nwant   %s", stderr, xml+tc.want)
		}
	}
}
