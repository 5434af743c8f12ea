package cli

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The 1.2 grammar's interactive shell on a real pseudo-terminal: the
// [user@keyspace] prompt, a statement over two lines, tab completion of a
// command word, an error that leaves the shell running, and the history
// file.
func TestCLI12Interactive(t *testing.T) {
	n := start(t, conf12(t), "-api", "auto")
	host, port, _ := net.SplitHostPort(n.Addr)
	home := t.TempDir()
	term := startTerminal(t, home, "--api", "1.2", "--host", host, "--port", port)
	term.waitFor(`Connected to: "`+referenceCluster+`" on `+host+"/"+port, 1)
	term.waitFor("[default@unknown] ", 1)
	term.typeKeys("create keyspace Shell with placement_strategy = 'SimpleStrategy'" + enter)
	term.waitFor("...", 1)
	term.typeKeys("and strategy_options = {replication_factor : 1};" + enter)
	term.waitFor("[default@unknown] ", 2)
	term.typeKeys("use Shell;" + enter)
	term.waitFor("Authenticated to keyspace: Shell", 1)
	term.waitFor("[default@Shell] ", 1)
	term.typeKeys("create column family C with comparator = UTF8Type and default_validation_class = UTF8Type;" + enter)
	term.waitFor("[default@Shell] ", 2)
	term.typeKeys("set C['6b']['name'] = 'value';" + enter)
	term.waitFor("Value inserted.", 1)
	// consis<Tab> completes to consistencylevel.
	term.typeKeys("consis" + tab)
	term.typeKeys("as QUORUM;" + enter)
	term.waitFor("Consistency level is set to 'QUORUM'.", 1)
	term.typeKeys("get C['6b'];" + enter)
	term.waitFor("=> (name=name, value=value, timestamp=", 1)
	// An error is shown and the shell goes on.
	term.typeKeys("get Nope['6b'];" + enter)
	term.waitFor("Nope not found in current keyspace.", 1)
	term.typeKeys("count C['6b'];" + enter)
	term.waitFor("1 cells", 1)
	term.typeKeys("quit;" + enter)
	if code := term.wait(); code != 0 {
		t.Fatalf("quit: exit %d", code)
	}
	history, err := os.ReadFile(filepath.Join(home, ".thriftd_cli_history"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(history), "consistencylevel as QUORUM;\n") || !strings.Contains(string(history), "use Shell;\n") {
		t.Fatalf("the history holds %q", history)
	}
}
