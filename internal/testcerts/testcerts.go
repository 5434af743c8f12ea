// Package testcerts makes throwaway certificates for tests of TLS on the
// Thrift port, at run time, so that no private key is ever committed: a
// certificate authority, a server certificate for localhost and 127.0.0.1,
// and a client certificate, written as PEM and PKCS12 files.
package testcerts

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

// Password protects the PKCS12 files.
const Password = "cassandra"

// Set is one authority and the certificates it signed, and where Write put
// them.
type Set struct {
	CA     *x509.Certificate
	Server tls.Certificate
	Client tls.Certificate

	// Files written by Write, in dir:
	CAPEM         string // ca.pem: the authority's certificate
	ServerPEM     string // server.pem: server certificate and unencrypted key
	ClientPEM     string // client.pem: client certificate and unencrypted key
	ServerP12     string // server.p12: server keystore, Password
	ClientP12     string // client.p12: client keystore, Password
	TruststoreP12 string // truststore.p12: the authority as a trusted entry, Password
	ClientCertPEM string // client-cert.pem: the client certificate alone
	ClientKeyPEM  string // client-key.pem: its key alone
	ServerCertPEM string // server-cert.pem, for clients that want it apart
	caKey         *ecdsa.PrivateKey
	serverKey     *ecdsa.PrivateKey
	clientKey     *ecdsa.PrivateKey
	serverLeaf    *x509.Certificate
	clientLeaf    *x509.Certificate
}

// New makes a fresh authority (named name) and its server and client
// certificates.
func New(name string) (*Set, error) {
	s := &Set{}
	var err error
	if s.caKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
		return nil, err
	}
	now := time.Now().Add(-time.Hour)
	ca := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name + " CA"},
		NotBefore: now, NotAfter: now.Add(48 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, ca, ca, &s.caKey.PublicKey, s.caKey)
	if err != nil {
		return nil, err
	}
	if s.CA, err = x509.ParseCertificate(der); err != nil {
		return nil, err
	}
	if s.serverLeaf, s.serverKey, err = s.leaf(2, "localhost", x509.ExtKeyUsageServerAuth); err != nil {
		return nil, err
	}
	if s.clientLeaf, s.clientKey, err = s.leaf(3, name+" client", x509.ExtKeyUsageClientAuth); err != nil {
		return nil, err
	}
	s.Server = tls.Certificate{Certificate: [][]byte{s.serverLeaf.Raw}, PrivateKey: s.serverKey, Leaf: s.serverLeaf}
	s.Client = tls.Certificate{Certificate: [][]byte{s.clientLeaf.Raw}, PrivateKey: s.clientKey, Leaf: s.clientLeaf}
	return s, nil
}

func (s *Set) leaf(serial int64, cn string, usage x509.ExtKeyUsage) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now().Add(-time.Hour)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
		NotBefore: now, NotAfter: now.Add(48 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
	}
	if usage == x509.ExtKeyUsageServerAuth {
		tmpl.DNSNames = []string{"localhost"}
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, s.CA, &key.PublicKey, s.caKey)
	if err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}

// Pool is a pool holding the authority alone.
func (s *Set) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(s.CA)
	return p
}

// Write writes the files into dir and records their paths in s.
func (s *Set) Write(dir string) error {
	pemOf := func(blocks ...*pem.Block) []byte {
		var out []byte
		for _, b := range blocks {
			out = append(out, pem.EncodeToMemory(b)...)
		}
		return out
	}
	certBlock := func(c *x509.Certificate) *pem.Block { return &pem.Block{Type: "CERTIFICATE", Bytes: c.Raw} }
	keyBlock := func(k *ecdsa.PrivateKey) (*pem.Block, error) {
		der, err := x509.MarshalPKCS8PrivateKey(k)
		return &pem.Block{Type: "PRIVATE KEY", Bytes: der}, err
	}
	sk, err := keyBlock(s.serverKey)
	if err != nil {
		return err
	}
	ck, err := keyBlock(s.clientKey)
	if err != nil {
		return err
	}
	serverP12, err := pkcs12.Modern.Encode(s.serverKey, s.serverLeaf, []*x509.Certificate{s.CA}, Password)
	if err != nil {
		return err
	}
	clientP12, err := pkcs12.Modern.Encode(s.clientKey, s.clientLeaf, []*x509.Certificate{s.CA}, Password)
	if err != nil {
		return err
	}
	trustP12, err := pkcs12.Modern.EncodeTrustStore([]*x509.Certificate{s.CA}, Password)
	if err != nil {
		return err
	}
	files := []struct {
		dst  *string
		name string
		data []byte
	}{
		{&s.CAPEM, "ca.pem", pemOf(certBlock(s.CA))},
		{&s.ServerPEM, "server.pem", pemOf(certBlock(s.serverLeaf), certBlock(s.CA), sk)},
		{&s.ClientPEM, "client.pem", pemOf(certBlock(s.clientLeaf), ck)},
		{&s.ServerCertPEM, "server-cert.pem", pemOf(certBlock(s.serverLeaf))},
		{&s.ClientCertPEM, "client-cert.pem", pemOf(certBlock(s.clientLeaf))},
		{&s.ClientKeyPEM, "client-key.pem", pemOf(ck)},
		{&s.ServerP12, "server.p12", serverP12},
		{&s.ClientP12, "client.p12", clientP12},
		{&s.TruststoreP12, "truststore.p12", trustP12},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, f.data, 0o600); err != nil {
			return err
		}
		*f.dst = p
	}
	return nil
}
