package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"

	"github.com/thriftd/thriftd/server"
	"github.com/thriftd/thriftd/settings"
	"github.com/thriftd/thriftd/tlsconf"
)

// thriftListener is one Thrift port: plain, or TLS when tls is set.
type thriftListener struct {
	l   net.Listener
	tls *server.TLS
}

// serverTLS reads client_encryption_options' stores into the TLS of the
// Thrift port, or returns nil when it is not enabled. An error names the
// setting and where its value came from.
func serverTLS(eff *settings.Effective, log *slog.Logger) (*server.TLS, error) {
	c := eff.ClientEncryption
	if !c.Enabled {
		return nil, nil
	}
	cfg, skipped, err := tlsconf.ServerConfig(tlsconf.Server{
		Keystore: c.Keystore, KeystorePassword: c.KeystorePassword,
		RequireClientAuth: c.RequireClientAuth,
		Truststore:        c.Truststore, TruststorePassword: c.TruststorePassword,
		Protocol: c.Protocol, CipherSuites: c.CipherSuites, StoreType: c.StoreType,
	})
	var te *tlsconf.Error
	if errors.As(err, &te) {
		return nil, eff.SettingError("client_encryption_options."+te.Setting, te.Err)
	}
	if err != nil {
		return nil, err
	}
	if len(skipped) > 0 {
		log.Warn("cipher suites Go does not implement are left out", "cipher_suites", skipped,
			"setting", "client_encryption_options.cipher_suites", "from", eff.Origin("client_encryption_options.cipher_suites").String())
	}
	return &server.TLS{Config: cfg, Optional: c.Optional, HandshakeTimeout: c.HandshakeTimeout}, nil
}

// listenThrift opens the Thrift ports: listen's, plain unless TLS is
// enabled without tls_listen, and tls_listen's beside it. The first is
// listen's, whose address describe_ring reports.
func listenThrift(eff *settings.Effective, t *server.TLS) ([]thriftListener, error) {
	var out []thriftListener
	open := func(addr string, t *server.TLS) error {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			kind := "Thrift"
			if t != nil {
				kind = "TLS Thrift"
			}
			return fmt.Errorf("cannot listen for %s clients on %s: %w", kind, addr, err)
		}
		out = append(out, thriftListener{l: l, tls: t})
		return nil
	}
	first := t
	if eff.TLSListen != "" {
		first = nil
	}
	err := open(eff.Listen, first)
	if err == nil && eff.TLSListen != "" {
		err = open(eff.TLSListen, t)
	}
	if err != nil {
		for _, l := range out {
			l.l.Close()
		}
		return nil, err
	}
	return out, nil
}

// serveOn runs l's accept loop on srv.
func serveOn(srv *server.Server, l thriftListener) error {
	if l.tls != nil {
		return srv.ServeTLS(l.l, *l.tls)
	}
	return srv.Serve(l.l)
}

// listenAttrs describe the ports for the start-up log line: listen is
// listen's address and tls what it speaks (off, on, or optional: both);
// tls_listen is the TLS port beside it, if any.
func listenAttrs(ls []thriftListener) []any {
	mode := func(t *server.TLS) string {
		switch {
		case t == nil:
			return "off"
		case t.Optional:
			return "optional"
		}
		return "on"
	}
	out := []any{"listen", ls[0].l.Addr().String(), "tls", mode(ls[0].tls)}
	if len(ls) > 1 {
		out = append(out, "tls_listen", ls[1].l.Addr().String(), "tls_listen_mode", mode(ls[1].tls))
	}
	return out
}
