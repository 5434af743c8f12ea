package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/internal/testcerts"
	"github.com/thriftd/thriftd/internal/testenv"
	"github.com/thriftd/thriftd/internal/transfertest"
)

// export, import and copy reach a thriftd whose Thrift port speaks TLS
// only and requires client certificates: with --ssl (or --to-ssl) and a
// client certificate they move the same data as over plain Thrift; a
// plain client, and a TLS client without a certificate, are refused.
func TestTransferOverTLS(t *testing.T) {
	c, err := testcerts.New("thriftd-tool test")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Write(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	// Both APIs on both nodes: copy reads the TLS port through the 19.x.
	src := testenv.NewNode(t, thriftdBin, transfertest.Config(t, t.TempDir(), "RandomPartitioner"), "-api", "auto")
	src.Start()
	secure := testenv.NewNode(t, thriftdBin, transfertest.Config(t, t.TempDir(), "RandomPartitioner"),
		"-tls", "-tls-keystore", c.ServerPEM, "-tls-require-client-auth", "-tls-truststore", c.CAPEM, "-api", "auto")
	secure.Start()
	secure.WaitLog(t, time.Second, map[string]string{"msg": "thriftd is serving", "tls": "on"})

	copied, imported := transfertest.FamilyNamed("Bytes"), transfertest.FamilyNamed("SuperUTF8Long")
	transfertest.Fill(t, src.Client(false), copied, 60, 8, 11)
	transfertest.Fill(t, src.Client(false), imported, 30, 4, 12)
	plainDir := t.TempDir()
	if _, errOut, code := tool(t, plainDir, "export", "--server", src.Addr, "--keyspace", transfertest.Keyspace, "--out", plainDir, "--progress", "off"); code != 0 {
		t.Fatalf("plain export: exit %d: %s", code, errOut)
	}
	p12 := []string{"--keystore", c.ClientP12, "--keystore-password", testcerts.Password}

	// copy: plain source, TLS target with its own flags.
	dir := t.TempDir()
	copyArgs := []string{"copy", "--from", src.Addr, "--to", secure.Addr, "--keyspace", transfertest.Keyspace, "--cf", copied.Name, "--progress", "off"}
	if _, errOut, code := tool(t, dir, append(copyArgs, "--to-ssl", "--to-truststore", c.CAPEM, "--to-keystore", c.ClientPEM)...); code != 0 {
		t.Fatalf("copy onto TLS: exit %d: %s", code, errOut)
	}
	// import over TLS, a PKCS12 client keystore and truststore.
	if _, errOut, code := tool(t, dir, append([]string{"import", "--server", secure.Addr, "--keyspace", transfertest.Keyspace, "--cf", imported.Name,
		"--ssl", "--truststore", c.TruststoreP12, "--truststore-password", testcerts.Password, "--progress", "off",
		filepath.Join(plainDir, transfertest.Keyspace+"."+imported.Name+".json")}, p12...)...); code != 0 {
		t.Fatalf("import over TLS: exit %d: %s", code, errOut)
	}
	// export over TLS gives the files the plain export gave.
	tlsDir := t.TempDir()
	if _, errOut, code := tool(t, tlsDir, append([]string{"export", "--server", secure.Addr, "--keyspace", transfertest.Keyspace,
		"--cf", copied.Name, "--cf", imported.Name, "--out", tlsDir, "--progress", "off", "--ssl", "--truststore", c.CAPEM}, p12...)...); code != 0 {
		t.Fatalf("export over TLS: exit %d: %s", code, errOut)
	}
	for _, f := range []transfertest.Family{copied, imported} {
		name := transfertest.Keyspace + "." + f.Name + ".json"
		want, err := os.ReadFile(filepath.Join(plainDir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(tlsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if len(want) < 100 || string(got) != string(want) {
			t.Errorf("%s over TLS (%d bytes) differs from the plain export (%d bytes)", name, len(got), len(want))
		}
	}

	// copy from the TLS port through the 19.x API (its probe over TLS
	// too), to a plain target.
	out, errOut, code := tool(t, dir, append([]string{"copy", "--from", secure.Addr, "--to", src.Addr, "--keyspace", transfertest.Keyspace,
		"--cf", copied.Name, "--api", "19", "--progress", "off", "-o", "json", "--ssl", "--truststore", c.CAPEM, "--to-ssl=false"}, p12...)...)
	if code != 0 || !strings.Contains(out, `"rows": 60`) {
		t.Fatalf("copy from TLS: exit %d, summary %s: %s", code, out, errOut)
	}

	// Refusals: TLS without the client certificate the port requires,
	// plain Thrift on the TLS port, stores without --ssl or unreadable.
	// What the client sees of a refused handshake depends on timing (with
	// TLS 1.3 the refusal may come as the alert, a reset or a broken pipe
	// on the first call); the error names the server, and thriftd logs the
	// cause.
	for i, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"export", "--server", secure.Addr, "--keyspace", transfertest.Keyspace, "--out", dir, "--ssl", "--truststore", c.CAPEM}, secure.Addr},
		{append(copyArgs, "--to-ssl", "--to-truststore", c.CAPEM), secure.Addr},
		{copyArgs, secure.Addr},
		{[]string{"export", "--server", secure.Addr, "--keyspace", transfertest.Keyspace, "--out", dir, "--truststore", c.CAPEM}, "--truststore and --keystore need --ssl"},
		{append([]string{"export", "--server", secure.Addr, "--keyspace", transfertest.Keyspace, "--out", dir, "--ssl", "--truststore", c.CAPEM},
			"--keystore", c.ClientP12, "--keystore-password", "wrong"), "--keystore-password: does not open " + c.ClientP12},
		{append(copyArgs, "--to-ssl", "--to-truststore", filepath.Join(dir, "missing.pem")), "--to-truststore: open " + filepath.Join(dir, "missing.pem")},
	} {
		_, errOut, code := tool(t, dir, tc.args...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q", tc.args, code, errOut, tc.want)
		}
		if i == 0 {
			// The first refusal of a host is logged with its cause.
			r := secure.WaitLog(t, 3*time.Second, map[string]string{"msg": "connection refused: TLS handshake failed"})
			if err := fmt.Sprint(r["err"]); !strings.Contains(err, "certificate") {
				t.Errorf("refusal logged with err %q", err)
			}
		}
	}
}
