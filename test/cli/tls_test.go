package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/internal/testcerts"
)

// thriftd-cli --ssl reaches a TLS-only Thrift port in both grammars,
// presenting a client certificate when the server requires one; without
// --ssl, or without the certificate, it does not get in.
func TestSSL(t *testing.T) {
	c, err := testcerts.New("thriftd-cli test")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	n := start(t, testConfig, "-tls", "-tls-keystore", c.ServerPEM, "-tls-require-client-auth", "-tls-truststore", c.CAPEM)
	addr := hostPort(t, n)
	since := time.Now()
	secure := append(addr, "--ssl", "--truststore", c.CAPEM, "--keystore", c.ClientPEM)

	r := runCLI(t, "", append(secure, "-e", "set Keyspace1.Standard1['k']['c'] = 'v'; get Keyspace1.Standard1['k']")...)
	if want := "Value inserted.\n=> (column=c, value=v, timestamp=T)\nReturned 1 results.\n"; r.code != 0 || stamps(t, since, r.stdout) != want {
		t.Fatalf("0.6 over TLS: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", append(secure, "--api", "1.2", "-e", "show cluster name;")...)
	if r.code != 0 || r.stderr != "" || strings.TrimSpace(r.stdout) == "" {
		t.Fatalf("1.2 over TLS: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for name, args := range map[string][]string{
		"plain":                 addr,
		"no client certificate": append(addr, "--ssl", "--truststore", c.CAPEM),
		"untrusted server":      append(addr, "--ssl", "--keystore", c.ClientPEM),
	} {
		if r := runCLI(t, "", append(args, "-e", "show cluster name")...); r.code == 0 {
			t.Errorf("%s: served\nstdout:\n%s", name, r.stdout)
		}
	}
	if r := runCLI(t, "", append(addr, "--ssl", "--truststore", "missing.pem", "-e", "show cluster name")...); r.code == 0 || !strings.Contains(r.stderr, "--truststore: open missing.pem") {
		t.Errorf("a missing truststore: exit %d, stderr %s", r.code, r.stderr)
	}
}
