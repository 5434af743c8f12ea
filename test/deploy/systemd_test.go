//go:build deploy

package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/internal/testenv"
)

// TestSystemdUnit checks deploy/thriftd.service with systemd-analyze
// verify (its ExecStart pointed at a real thriftd binary: verify checks
// that the program exists), that its hardening is in place (and scored by
// systemd-analyze security), and that thriftd accepts ExecStart's flags.
func TestSystemdUnit(t *testing.T) {
	analyze := need(t, "systemd-analyze", "systemd")
	unit := readRepo(t, "deploy/thriftd.service")
	for _, want := range []string{
		"User=thriftd", "NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes",
		"Restart=on-failure", "LimitNOFILE=", "KillSignal=SIGTERM", "CapabilityBoundingSet=",
	} {
		if !strings.Contains(unit, "\n"+want) {
			t.Errorf("deploy/thriftd.service has no %s", want)
		}
	}
	exec := regexp.MustCompile(`(?m)^ExecStart=(/\S+)(.*)$`).FindStringSubmatch(unit)
	if exec == nil {
		t.Fatal("deploy/thriftd.service has no ExecStart=/absolute/path")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "thriftd.service")
	if err := os.WriteFile(path, []byte(strings.Replace(unit, "ExecStart="+exec[1], "ExecStart="+thriftdBin, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out := command(t, analyze, "verify", path); strings.TrimSpace(out) != "" {
		// verify prints nothing for a sound unit; anything is a warning.
		t.Errorf("systemd-analyze verify deploy/thriftd.service:\n%s", out)
	}
	// An exposure score of 0 (locked down) to 10 (unprotected): the unit
	// scores about 1.6; above 3 some hardening was lost.
	out, err := run(analyze, "security", "--offline=yes", "--threshold=30", path)
	if err != nil {
		t.Errorf("systemd-analyze security scores deploy/thriftd.service above 3.0: %v\n%s", err, out)
	}
	// ExecStart's flags, on the repository's thriftd.yaml instead of
	// /etc/thriftd's.
	args := strings.Fields(exec[2])
	for i, a := range args {
		if a == "/etc/thriftd/thriftd.yaml" {
			args[i] = filepath.Join(testenv.RepoRoot(), "thriftd.yaml")
		}
		if a == "/var/lib/thriftd" {
			args[i] = filepath.Join(dir, "data")
		}
	}
	command(t, thriftdBin, append(args, "-print-config")...)
}
