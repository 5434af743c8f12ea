// Package tlsconf builds crypto/tls configurations from what Cassandra's
// client_encryption_options name: a keystore (the server's certificate and
// private key), a truststore (the certificate authorities whose client
// certificates are accepted), a protocol name and Java cipher suite names.
//
// Keystores and truststores are read in the two forms Go can use without a
// JVM: PEM and PKCS12 (the store_type Java 9 and later create by default,
// and the one a JKS store converts to with one keytool command). A file's
// content decides its form; a JKS or JCEKS file is refused with that
// command in the error.
package tlsconf

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"software.sslmate.com/src/go-pkcs12"
)

// Server is the server side of client_encryption_options.
type Server struct {
	Keystore         string // PEM (certificate chain and key) or PKCS12
	KeystorePassword string // of a PKCS12 keystore
	// RequireClientAuth makes every client present a certificate signed
	// by an authority of Truststore.
	RequireClientAuth  bool
	Truststore         string // PEM certificates or PKCS12
	TruststorePassword string
	Protocol           string   // TLS, TLSv1.2, ...; "" is TLS
	CipherSuites       []string // Java (IANA) names; none: Go's defaults
	StoreType          string   // JKS, PKCS12 or PEM, checked against the files; "": any
}

// Error is a problem with one of the settings, named as in
// client_encryption_options ("keystore", "truststore_password", ...).
type Error struct {
	Setting string
	Err     error
}

func (e *Error) Error() string { return e.Setting + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ServerConfig reads the keystore (and, with RequireClientAuth, the
// truststore) and returns the server's TLS configuration. Cipher suite
// names Go does not implement are left out and returned in skipped, as
// Cassandra 3.11 left out those its JVM lacked; it is an error when none
// is left.
func ServerConfig(o Server) (cfg *tls.Config, skipped []string, err error) {
	cfg = &tls.Config{}
	if cfg.MinVersion, cfg.MaxVersion, err = Protocol(o.Protocol); err != nil {
		return nil, nil, &Error{"protocol", err}
	}
	if len(o.CipherSuites) > 0 {
		if cfg.CipherSuites, skipped, err = CipherSuites(o.CipherSuites); err != nil {
			return nil, nil, &Error{"cipher_suites", err}
		}
		if len(cfg.CipherSuites) == 0 {
			// Only TLS 1.3 suites were named.
			if cfg.MaxVersion < tls.VersionTLS13 {
				return nil, nil, &Error{"cipher_suites", fmt.Errorf("names only TLS 1.3 suites, which protocol %s does not offer", o.Protocol)}
			}
			cfg.MinVersion = tls.VersionTLS13
		}
	}
	cert, err := LoadKeystore(o.Keystore, o.KeystorePassword, o.StoreType)
	if err != nil {
		return nil, nil, err
	}
	cfg.Certificates = []tls.Certificate{cert}
	if o.RequireClientAuth {
		pool, err := LoadTruststore(o.Truststore, o.TruststorePassword, o.StoreType)
		if err != nil {
			return nil, nil, err
		}
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
		cfg.ClientCAs = pool
	}
	return cfg, skipped, nil
}

// Client is the client side: the authorities to trust (none: the system's)
// and an optional client certificate.
type Client struct {
	Truststore         string
	TruststorePassword string
	Keystore           string
	KeystorePassword   string
	ServerName         string // the name the server's certificate must carry
}

// ClientConfig returns the TLS configuration of a client.
func ClientConfig(o Client) (*tls.Config, error) {
	cfg := &tls.Config{ServerName: o.ServerName}
	if o.Truststore != "" {
		pool, err := LoadTruststore(o.Truststore, o.TruststorePassword, "")
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if o.Keystore != "" {
		cert, err := LoadKeystore(o.Keystore, o.KeystorePassword, "")
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// Form is how a store file is written.
type form string

const (
	formPEM    form = "PEM"
	formPKCS12 form = "PKCS12"
	formJKS    form = "JKS"
	formJCEKS  form = "JCEKS"
)

// formOf tells a store's form by its first bytes.
func formOf(data []byte) form {
	switch {
	case bytes.HasPrefix(data, []byte{0xfe, 0xed, 0xfe, 0xed}):
		return formJKS
	case bytes.HasPrefix(data, []byte{0xce, 0xce, 0xce, 0xce}):
		return formJCEKS
	case bytes.Contains(data, []byte("-----BEGIN ")):
		return formPEM
	}
	return formPKCS12
}

// readStore reads a store file and checks its form against store_type.
func readStore(setting, path, storeType string) ([]byte, form, error) {
	if path == "" {
		return nil, "", &Error{setting, errors.New("must be set")}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", &Error{setting, err}
	}
	f := formOf(data)
	if f == formJKS || f == formJCEKS {
		return nil, f, &Error{setting, fmt.Errorf("%s is a %s store, which thriftd cannot read; convert it to PKCS12 with "+
			"`keytool -importkeystore -srckeystore %s -srcstoretype %s -destkeystore %s.p12 -deststoretype PKCS12` "+
			"(same password), then name the .p12 file and set store_type: PKCS12", path, f, path, f, strings.TrimSuffix(path, ".jks"))}
	}
	if st := strings.ToUpper(storeType); st != "" && st != string(f) && !(st == "JKS" && f == formPKCS12) {
		// JKS is Cassandra's default store_type, left in many files
		// whose stores have since been converted: not worth refusing.
		return nil, f, &Error{"store_type", fmt.Errorf("is %s, but %s %s is %s", storeType, setting, path, f)}
	}
	return data, f, nil
}

// LoadKeystore reads a certificate chain and its private key: a PEM file
// holding both (the key unencrypted), or a PKCS12 keystore and its
// password.
func LoadKeystore(path, password, storeType string) (tls.Certificate, error) {
	data, f, err := readStore("keystore", path, storeType)
	if err != nil {
		return tls.Certificate{}, err
	}
	if f == formPEM {
		if bytes.Contains(data, []byte("ENCRYPTED")) {
			return tls.Certificate{}, &Error{"keystore", fmt.Errorf("%s: the private key is encrypted; "+
				"write it unencrypted (`openssl pkey -in KEY -out KEY.pem`, file mode 0600) or use a PKCS12 keystore with keystore_password", path)}
		}
		cert, err := tls.X509KeyPair(data, data)
		if err != nil {
			return tls.Certificate{}, &Error{"keystore", fmt.Errorf("%s: %w (a PEM keystore holds the certificate chain and its private key)", path, err)}
		}
		return cert, nil
	}
	key, leaf, chain, err := pkcs12.DecodeChain(data, password)
	if err != nil {
		return tls.Certificate{}, pkcs12Error("keystore", path, err)
	}
	cert := tls.Certificate{PrivateKey: key, Leaf: leaf, Certificate: [][]byte{leaf.Raw}}
	for _, c := range chain {
		cert.Certificate = append(cert.Certificate, c.Raw)
	}
	return cert, nil
}

// LoadTruststore reads the certificates to trust: PEM certificates, or a
// PKCS12 truststore (keytool's trusted certificate entries, or the
// certificates of a keystore).
func LoadTruststore(path, password, storeType string) (*x509.CertPool, error) {
	data, f, err := readStore("truststore", path, storeType)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if f == formPEM {
		if !pool.AppendCertsFromPEM(data) {
			return nil, &Error{"truststore", fmt.Errorf("%s holds no PEM certificate", path)}
		}
		return pool, nil
	}
	certs, err := pkcs12.DecodeTrustStore(data, password)
	if err != nil || len(certs) == 0 {
		// Not keytool's trusted entries: a store of key entries, whose
		// certificates are trusted as keytool's truststores would be.
		_, leaf, chain, err2 := pkcs12.DecodeChain(data, password)
		if err2 != nil {
			if err == nil {
				err = err2
			}
			return nil, pkcs12Error("truststore", path, err)
		}
		certs = append([]*x509.Certificate{leaf}, chain...)
	}
	for _, c := range certs {
		pool.AddCert(c)
	}
	return pool, nil
}

func pkcs12Error(setting, path string, err error) error {
	if errors.Is(err, pkcs12.ErrIncorrectPassword) {
		return &Error{setting + "_password", fmt.Errorf("does not open %s: %w", path, err)}
	}
	return &Error{setting, fmt.Errorf("%s: not a PKCS12 store Go can read (%w); PEM and PKCS12 are read", path, err)}
}

// Protocol maps client_encryption_options.protocol to the versions
// accepted. As in Java's SSLContext, the name is the newest version
// spoken; the oldest is TLS 1.2, or the version named when it is older.
// "TLS" (Cassandra's default) and "" accept TLS 1.2 and 1.3.
func Protocol(name string) (minVersion, maxVersion uint16, err error) {
	switch strings.ToUpper(name) {
	case "", "TLS", "TLSV1.3":
		return tls.VersionTLS12, tls.VersionTLS13, nil
	case "TLSV1.2":
		return tls.VersionTLS12, tls.VersionTLS12, nil
	case "TLSV1.1":
		return tls.VersionTLS11, tls.VersionTLS11, nil
	case "TLSV1", "TLSV1.0":
		return tls.VersionTLS10, tls.VersionTLS10, nil
	}
	return 0, 0, fmt.Errorf("want TLS, TLSv1.3, TLSv1.2, TLSv1.1 or TLSv1, not %q (SSLv3 is not offered)", name)
}

var suiteName = regexp.MustCompile(`^(TLS|SSL)_[A-Z0-9_]+$`)

// CipherSuites maps Java cipher suite names (IANA's; Java's SSL_ prefix
// is read as TLS_) to Go's suite IDs. A well-formed name Go does not
// implement (the DHE suites, for one) is returned in skipped; a malformed
// one is an error, and so is a list of which nothing is left. TLS 1.3's
// suites are accepted and always on: Go does not let them be chosen.
func CipherSuites(names []string) (ids []uint16, skipped []string, err error) {
	known := map[string]uint16{}
	for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
		known[s.Name] = s.ID
	}
	tls13 := false
	for _, n := range names {
		if !suiteName.MatchString(n) {
			return nil, nil, fmt.Errorf("%q is not a cipher suite name (such as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256)", n)
		}
		id, ok := known["TLS_"+strings.TrimPrefix(strings.TrimPrefix(n, "TLS_"), "SSL_")]
		switch {
		case !ok:
			skipped = append(skipped, n)
		case id>>8 == 0x13:
			tls13 = true
		default:
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 && !tls13 {
		return nil, nil, fmt.Errorf("none of %s is a cipher suite Go implements", strings.Join(names, ", "))
	}
	return ids, skipped, nil
}
