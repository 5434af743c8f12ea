package tlsconf

import (
	"crypto/tls"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/internal/testcerts"
)

func writeCerts(t *testing.T) *testcerts.Set {
	t.Helper()
	s, err := testcerts.New("tlsconf test")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	return s
}

// A handshake between the configurations built from the stores succeeds,
// in every form the stores take.
func TestStoresHandshake(t *testing.T) {
	c := writeCerts(t)
	for _, tc := range []struct {
		name                 string
		keystore, truststore string
		clientKeystore       string
	}{
		{"PEM", c.ServerPEM, c.CAPEM, c.ClientPEM},
		{"PKCS12", c.ServerP12, c.TruststoreP12, c.ClientP12},
		{"PKCS12 keystore as truststore", c.ServerP12, c.ServerP12, c.ClientP12},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, skipped, err := ServerConfig(Server{
				Keystore: tc.keystore, KeystorePassword: testcerts.Password,
				RequireClientAuth: true, Truststore: tc.truststore, TruststorePassword: testcerts.Password,
			})
			if err != nil || len(skipped) > 0 {
				t.Fatalf("ServerConfig: %v (skipped %v)", err, skipped)
			}
			cli, err := ClientConfig(Client{Truststore: tc.truststore, TruststorePassword: testcerts.Password,
				Keystore: tc.clientKeystore, KeystorePassword: testcerts.Password, ServerName: "localhost"})
			if err != nil {
				t.Fatal(err)
			}
			if err := handshake(t, srv, cli); err != nil {
				t.Fatalf("handshake: %v", err)
			}
			cli.Certificates = nil
			if err := handshake(t, srv, cli); err == nil {
				t.Fatal("a client without a certificate was accepted")
			}
		})
	}
}

func handshake(t *testing.T, srv, cli *tls.Config) error {
	t.Helper()
	l, err := tls.Listen("tcp", "127.0.0.1:0", srv)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	done := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			err = c.(*tls.Conn).Handshake()
			c.Close()
		}
		done <- err
	}()
	c, err := tls.Dial("tcp", l.Addr().String(), cli)
	if err == nil {
		// TLS 1.3: the server's verdict on the client comes after.
		_, err = c.Read(make([]byte, 1))
		c.Close()
		if errors.Is(err, os.ErrDeadlineExceeded) {
			err = nil
		}
	}
	if serr := <-done; serr != nil {
		return serr
	}
	if err != nil && !strings.Contains(err.Error(), "EOF") {
		return err
	}
	return nil
}

// Each mistake names the setting to change.
func TestErrorsNameTheSetting(t *testing.T) {
	c := writeCerts(t)
	dir := t.TempDir()
	jks := filepath.Join(dir, "keystore.jks")
	os.WriteFile(jks, []byte{0xfe, 0xed, 0xfe, 0xed, 0, 0, 0, 2}, 0o600)
	encrypted := filepath.Join(dir, "enc.pem")
	os.WriteFile(encrypted, []byte("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n"), 0o600)
	for _, tc := range []struct {
		name    string
		o       Server
		setting string
		says    string
	}{
		{"no keystore", Server{}, "keystore", "must be set"},
		{"missing file", Server{Keystore: filepath.Join(dir, "none.p12")}, "keystore", "no such file"},
		{"JKS", Server{Keystore: jks}, "keystore", "keytool -importkeystore -srckeystore " + jks},
		{"wrong password", Server{Keystore: c.ServerP12, KeystorePassword: "wrong"}, "keystore_password", "incorrect"},
		{"encrypted PEM key", Server{Keystore: encrypted}, "keystore", "encrypted"},
		{"PEM without key", Server{Keystore: c.CAPEM}, "keystore", "private key"},
		{"store type", Server{Keystore: c.ServerPEM, StoreType: "PKCS12"}, "store_type", "is PEM"},
		{"truststore", Server{Keystore: c.ServerPEM, RequireClientAuth: true, Truststore: c.ServerP12, TruststorePassword: "x"}, "truststore_password", "incorrect"},
		{"protocol", Server{Keystore: c.ServerPEM, Protocol: "SSLv3"}, "protocol", "SSLv3"},
		{"cipher", Server{Keystore: c.ServerPEM, CipherSuites: []string{"AES128"}}, "cipher_suites", "not a cipher suite"},
		{"no cipher left", Server{Keystore: c.ServerPEM, CipherSuites: []string{"TLS_DHE_RSA_WITH_AES_128_CBC_SHA"}}, "cipher_suites", "none of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ServerConfig(tc.o)
			var e *Error
			if !errors.As(err, &e) || e.Setting != tc.setting || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("got %v, want an error about %s saying %q", err, tc.setting, tc.says)
			}
		})
	}
}

func TestProtocol(t *testing.T) {
	for name, want := range map[string][2]uint16{
		"":        {tls.VersionTLS12, tls.VersionTLS13},
		"TLS":     {tls.VersionTLS12, tls.VersionTLS13},
		"TLSv1.2": {tls.VersionTLS12, tls.VersionTLS12},
		"tlsv1.3": {tls.VersionTLS12, tls.VersionTLS13},
		"TLSv1":   {tls.VersionTLS10, tls.VersionTLS10},
	} {
		lo, hi, err := Protocol(name)
		if err != nil || lo != want[0] || hi != want[1] {
			t.Errorf("Protocol(%q) = %x, %x, %v; want %x, %x", name, lo, hi, err, want[0], want[1])
		}
	}
}

func TestCipherSuites(t *testing.T) {
	ids, skipped, err := CipherSuites([]string{
		"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "SSL_RSA_WITH_AES_128_CBC_SHA",
		"TLS_DHE_RSA_WITH_AES_128_CBC_SHA", "TLS_AES_128_GCM_SHA256",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []uint16{tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, tls.TLS_RSA_WITH_AES_128_CBC_SHA}
	if len(ids) != 2 || ids[0] != want[0] || ids[1] != want[1] {
		t.Errorf("ids = %x, want %x", ids, want)
	}
	if len(skipped) != 1 || skipped[0] != "TLS_DHE_RSA_WITH_AES_128_CBC_SHA" {
		t.Errorf("skipped = %v", skipped)
	}
	c := writeCerts(t)
	cfg, _, err := ServerConfig(Server{Keystore: c.ServerPEM, CipherSuites: []string{"TLS_AES_256_GCM_SHA384"}})
	if err != nil || cfg.MinVersion != tls.VersionTLS13 {
		t.Errorf("TLS 1.3 suites only: %v, min version %x", err, cfg.MinVersion)
	}
}
