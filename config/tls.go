package config

import (
	"strings"
	"time"
)

// ClientEncryption is thriftd's <ClientEncryptionOptions> element: TLS on
// the Thrift port, with the settings of cassandra.yaml's
// client_encryption_options (Cassandra 0.8-3.11) under 0.6's spelling, and
// thriftd's handshake timeout as <HandshakeTimeoutInSeconds>.
// Cassandra 0.6 would ignore the element. Values are checked where they
// are used (package settings, package tlsconf); here only their syntax.
type ClientEncryption struct {
	Enabled, Optional, RequireClientAuth bool
	Keystore, KeystorePassword           string
	Truststore, TruststorePassword       string
	Protocol, StoreType                  string
	CipherSuites                         []string
	HandshakeTimeout                     time.Duration // <HandshakeTimeoutInSeconds>
	// Present names the child elements given, for the settings layer.
	Present map[string]bool
}

// clientEncryptionElements are the children of <ClientEncryptionOptions>.
var clientEncryptionElements = []string{"Enabled", "Optional", "Keystore", "KeystorePassword",
	"RequireClientAuth", "Truststore", "TruststorePassword", "Protocol", "CipherSuites", "StoreType",
	"HandshakeTimeoutInSeconds"}

// readClientEncryption reads <ClientEncryptionOptions>, if present.
func (p *parser) readClientEncryption() {
	var elem *element
	for _, e := range p.root.children() {
		if e.name == "ClientEncryptionOptions" {
			elem = e
			break
		}
	}
	if elem == nil || p.err != nil {
		return
	}
	const path = "/Storage/ClientEncryptionOptions/"
	ce := &ClientEncryption{Present: map[string]bool{}}
	known := map[string]bool{}
	for _, n := range clientEncryptionElements {
		known[n] = true
	}
	for _, e := range elem.children() {
		if !known[e.name] {
			p.warn("%s%s is not a ClientEncryptionOptions element (%s) and is ignored", path, e.name, strings.Join(clientEncryptionElements, ", "))
		}
	}
	str := func(name string, dst *string) {
		if v, ok := childValue(elem, name); ok {
			*dst = v
			ce.Present[name] = true
		}
	}
	boolean := func(name string, dst *bool) {
		v, ok := childValue(elem, name)
		if !ok || p.err != nil {
			return
		}
		switch {
		case strings.EqualFold(v, "true"):
			*dst = true
		case strings.EqualFold(v, "false"):
			*dst = false
		default:
			p.fail(path+name, "Unrecognized value for %s.  Use 'true' or 'false'.", name)
			return
		}
		ce.Present[name] = true
	}
	boolean("Enabled", &ce.Enabled)
	boolean("Optional", &ce.Optional)
	boolean("RequireClientAuth", &ce.RequireClientAuth)
	str("Keystore", &ce.Keystore)
	str("KeystorePassword", &ce.KeystorePassword)
	str("Truststore", &ce.Truststore)
	str("TruststorePassword", &ce.TruststorePassword)
	str("Protocol", &ce.Protocol)
	str("StoreType", &ce.StoreType)
	if v, ok := childValue(elem, "HandshakeTimeoutInSeconds"); ok && p.err == nil {
		n, err := parseJavaInt(v, 32)
		switch {
		case err != nil:
			p.fail(path+"HandshakeTimeoutInSeconds", "%s", err)
		case n < 1:
			p.fail(path+"HandshakeTimeoutInSeconds", "HandshakeTimeoutInSeconds must be a positive integer")
		default:
			ce.HandshakeTimeout = time.Duration(n) * time.Second
			ce.Present["HandshakeTimeoutInSeconds"] = true
		}
	}
	for _, e := range elem.children() {
		if e.name != "CipherSuites" {
			continue
		}
		for _, s := range e.children() {
			if s.name == "CipherSuite" && s.stringValue() != "" {
				ce.CipherSuites = append(ce.CipherSuites, s.stringValue())
			}
		}
		ce.Present["CipherSuites"] = len(ce.CipherSuites) > 0
		break
	}
	p.c.ClientEncryption = ce
}
