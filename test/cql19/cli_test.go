package cql19

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/internal/testenv"
)

// referenceLib is the directory of cassandra-all 1.2.19 and its runtime
// jars, fetched by test/cassandra/reference fetch 1.2 (which returns at
// once when they are there).
func referenceLib(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(testenv.ReferenceScript(), "fetch", "1.2").CombinedOutput()
	if err != nil {
		t.Fatalf("%s fetch 1.2: %v\n%s", testenv.ReferenceScript(), err, out)
	}
	root := os.Getenv("THRIFTD_REFERENCE_CACHE")
	if root == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatal(err)
		}
		root = filepath.Join(home, ".cache", "thriftd")
	}
	lib := filepath.Join(root, "cassandra-1.2.19-reference", "lib")
	if _, err := os.Stat(filepath.Join(lib, "cassandra-all-1.2.19.jar")); err != nil {
		t.Fatalf("the reference jars are not where test/cassandra/reference fetched them: %v", err)
	}
	return lib
}

// javaBin is the Java test/cassandra/reference runs the nodes with (and
// its fetch installs): $THRIFTD_REFERENCE_JAVA, else Debian's Java 17.
func javaBin() string {
	if j := os.Getenv("THRIFTD_REFERENCE_JAVA"); j != "" {
		return j
	}
	return "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
}

// closedPort is a local port nothing listens on: the CLI's JMX port, so
// that its describe never reaches the JMX of another node on this machine
// (a test node on 7199, the default) and prints the same warning on both
// servers.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(l.Addr().String())
	l.Close()
	return port
}

// runCLI runs the real cassandra-cli 1.2.19 on script against addr and
// returns what it printed. It fails the test when the CLI fails.
func runCLI(t *testing.T, lib, addr, jmxPort, script string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(f, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	host, port, _ := strings.Cut(addr, ":")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, javaBin(), "-Xmx128m", "-cp", filepath.Join(lib, "*"),
		"org.apache.cassandra.cli.CliMain", "-h", host, "-p", port, "--jmxport", jmxPort, "-f", f)
	cmd.Dir = t.TempDir() // the CLI keeps its history under the home directory
	cmd.Env = append(os.Environ(), "HOME="+cmd.Dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("cassandra-cli against %s: %v\n%s", addr, err, out.String())
	}
	return out.String()
}

var (
	connectedRE = regexp.MustCompile(`(?m)^Connected to: ".*" on .*$`)
	uuidRE      = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
)

// normCLI replaces what differs between any two servers: the cluster's
// name and address, schema version ids, and the keyspace's name.
func normCLI(s, ks string) string {
	s = connectedRE.ReplaceAllString(s, `Connected to: CLUSTER on ADDRESS`)
	s = uuidRE.ReplaceAllString(s, "UUID")
	return strings.ReplaceAll(s, ks, "KS")
}

// The real cassandra-cli 1.2.19 creates a keyspace and its families on
// thriftd and on the real 1.2.19, then runs use, describe and show schema
// on both (each reads system.schema_columnfamilies through
// execute_cql3_query); it must succeed on thriftd and print the same.
func TestCassandraCLI(t *testing.T) {
	lib := referenceLib(t)
	ref := testenv.Reference(t, "1.2", "random")
	// The api setting a user gets by default: the CLI's framed
	// connection is told from a 0.6 client by its transport.
	thr := startThriftdAPI(t, "auto").Addr
	ks := uniqueName(t, "Cli_")
	dropLater(t, ref, ks)

	// One column definition a family: 1.2.19 listed several in the order
	// of a Java HashMap (docs/api19.md). The index is named: 1.2.19's
	// default names are unique across keyspaces, so they depend on what
	// else the node holds.
	create := strings.ReplaceAll(`create keyspace KS with placement_strategy = 'SimpleStrategy' and strategy_options = {replication_factor:1};
use KS;
create column family Std with comparator = UTF8Type and key_validation_class = UTF8Type and comment = 'plain "columns"'
  and column_metadata = [{column_name: name, validation_class: UTF8Type, index_type: KEYS, index_name: 'KS_by_name'}];
create column family Sup with column_type = Super and comparator = LongType and subcomparator = UTF8Type and default_validation_class = UTF8Type
  and column_metadata = [{column_name: age, validation_class: LongType}];
create column family Typed with comparator = 'CompositeType(UTF8Type, IntegerType)' and key_validation_class = LongType and gc_grace = 3600 and read_repair_chance = 0.5 and bloom_filter_fp_chance = 0.05 and caching = 'ALL';
create column family Counts with default_validation_class = CounterColumnType and replicate_on_write = true;
`, "KS", ks)
	show := strings.ReplaceAll("use KS;\ndescribe;\nshow schema;\ndescribe Std;\nshow keyspaces;\n", "KS", ks)

	jmx := closedPort(t)
	refCreate := normCLI(runCLI(t, lib, ref, jmx, create), ks)
	thrCreate := normCLI(runCLI(t, lib, thr, jmx, create), ks)
	if refCreate != thrCreate {
		t.Errorf("creating the schema, cassandra-cli printed on 1.2.19:\n%s\nand on thriftd:\n%s", refCreate, thrCreate)
	}
	refShow := normCLI(runCLI(t, lib, ref, jmx, show), ks)
	thrShow := normCLI(runCLI(t, lib, thr, jmx, show), ks)
	// show keyspaces lists every keyspace; the system keyspaces of each
	// server differ, so only the test keyspace's part is compared there.
	refShow, thrShow = cutSystemKeyspaces(refShow), cutSystemKeyspaces(thrShow)
	if !strings.Contains(thrShow, "ColumnFamily: Std") || !strings.Contains(thrShow, "create column family Typed") {
		t.Errorf("cassandra-cli on thriftd did not describe the families:\n%s", thrShow)
	}
	if refShow != thrShow {
		t.Errorf("use, describe and show schema differ:\n%s", lineDiff(refShow, thrShow))
	}
}

// cutSystemKeyspaces drops from show keyspaces' output the keyspaces
// other than the test's.
func cutSystemKeyspaces(s string) string {
	var out []string
	skip := false
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "Keyspace: ") {
			skip = !strings.HasPrefix(line, "Keyspace: KS:")
		}
		if !skip {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// lineDiff shows the lines of a and b that differ, with their numbers.
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var sb strings.Builder
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			sb.WriteString("line " + itoa(i+1) + ":\n  1.2.19:  " + x + "\n  thriftd: " + y + "\n")
		}
	}
	return sb.String()
}

func itoa(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	return itoa(n/10) + digits[n%10:n%10+1]
}
