package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/internal/testenv"
)

// migration shows and changes the proxy's settings through the admin
// endpoint, and a change the proxy refuses is an error that says why.
// The origin is dialed at a client's first call, so none is needed here.
func TestMigrationCommand(t *testing.T) {
	dir := t.TempDir()
	n := testenv.NewNodeArgs(t, thriftdBin, "-config", filepath.Join(testenv.RepoRoot(), "storage-conf.xml"),
		"-listen", "127.0.0.1:0", "-admin", "127.0.0.1:0", "-data", filepath.Join(dir, "data"),
		"-log-format", "json", "-origin", "127.0.0.1:1")
	n.Start()
	admin := testenv.LogValue(n.WaitLog(t, time.Minute, map[string]string{"msg": "admin endpoint is serving"})["addr"])
	out, errOut, code := tool(t, dir, "--admin", admin, "migration")
	if code != 0 || !strings.Contains(out, "Origin: 127.0.0.1:1\nReads: origin\nWrites: both\nPending writes: 0") {
		t.Fatalf("migration: exit %d: %s%s", code, out, errOut)
	}
	out, errOut, code = tool(t, dir, "--admin", admin, "migration", "--reads", "both")
	if code != 0 || !strings.Contains(out, "Reads: both") {
		t.Fatalf("migration --reads both: exit %d: %s%s", code, out, errOut)
	}
	out, errOut, code = tool(t, dir, "--admin", admin, "migration", "--writes", "target")
	if code == 0 || !strings.Contains(errOut, "needs reads target") {
		t.Fatalf("migration --writes target with reads both: exit %d: %s%s", code, out, errOut)
	}
	n.WaitLog(t, time.Minute, map[string]string{"msg": "migration proxy: settings changed", "reads": "both"})
}
