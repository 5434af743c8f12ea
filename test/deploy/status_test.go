//go:build deploy

package deploy

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/internal/testenv"
)

// chromium runs headless Chromium with the flags of a quiet test browser
// (a new empty profile, nothing fetched from the network but the page) and
// returns its stdout and its log, in which each console message of the
// page is a ":CONSOLE" line.
func chromium(t *testing.T, args ...string) (string, string) {
	t.Helper()
	bin := need(t, "chromium", "chromium")
	flags := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := execCommand(ctx, bin, append(flags, args...)...)
	var out, log strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &log
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, log.String())
	}
	return out.String(), log.String()
}

// TestStatusPage loads the admin endpoint's status page in headless
// Chromium while a client makes calls: the page shows the node's version,
// store and keyspaces, the calls counted (live: refreshed, with a rate),
// and logs nothing to the console (no script error, no refused resource).
// With THRIFTD_STATUS_SCREENSHOT=FILE it also saves a screenshot there
// (docs/status-page.png is one).
func TestStatusPage(t *testing.T) {
	n := testenv.NewNode(t, thriftdBin, testenv.Fixture("storage-conf-0.6-default.xml"))
	n.Start()
	admin := testenv.LogValue(n.WaitLog(t, 5*time.Second, map[string]string{"msg": "admin endpoint is serving"})["addr"])
	c := n.Client(true)
	defer c.Close()
	insert := func(i int) {
		t.Helper()
		cp := &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}
		if err := c.Insert(context.Background(), "Keyspace1", "k"+strconv.Itoa(i), cp, []byte("v"), int64(i), cassandra.ConsistencyLevel_ONE); err != nil {
			t.Fatal(err)
		}
	}
	const before = 25
	for i := range before {
		insert(i)
	}
	// Calls go on while the page is open, for its rates.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := before; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			cp := &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}
			c.Insert(context.Background(), "Keyspace1", "k"+strconv.Itoa(i), cp, []byte("v"), int64(i), cassandra.ConsistencyLevel_ONE)
		}
	}()
	// Virtual time runs the page's refreshes (every 2 s) quickly; the
	// page's requests to thriftd are real.
	// The page's rate is the calls between two of its refreshes, which
	// virtual time runs milliseconds apart: on a busy machine no insert
	// may land between them, so the page is loaded again until one does.
	url := "http://" + admin + "/status"
	insertLine := regexp.MustCompile(`<td>insert</td><td class="n">([0-9.]+)</td><td class="n ?">([0-9.]+)</td><td class="n">\d+</td><td class="n">(\d+)</td>`)
	var dom, log string
	for deadline := time.Now().Add(2 * time.Minute); ; {
		dom, log = chromium(t, "--virtual-time-budget=9000", "--dump-dom", url)
		m := insertLine.FindStringSubmatch(dom)
		if m == nil || time.Now().After(deadline) {
			break
		}
		if rate, _ := strconv.ParseFloat(m[1], 64); rate > 0 {
			break
		}
	}
	if shot := os.Getenv("THRIFTD_STATUS_SCREENSHOT"); shot != "" {
		abs, _ := filepath.Abs(shot)
		chromium(t, "--virtual-time-budget=9000", "--window-size=1100,1150", "--hide-scrollbars", "--screenshot="+abs, url)
	}
	close(stop)
	wg.Wait()

	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, ":CONSOLE") {
			t.Errorf("console message: %s", line)
		}
	}
	text := func(id string) string {
		m := regexp.MustCompile(`id="` + id + `"[^>]*>([^<]*)<`).FindStringSubmatch(dom)
		if m == nil {
			t.Fatalf("the page has no #%s:\n%s", id, dom)
		}
		return m[1]
	}
	if v := text("version"); !strings.Contains(v, "go1.") {
		t.Errorf("version %q: want thriftd's version and Go's", v)
	}
	if node := text("node"); !strings.Contains(node, "store leveldb "+n.Data) || !strings.Contains(node, "RandomPartitioner") {
		t.Errorf("node line %q: want the store (leveldb %s) and the partitioner", node, n.Data)
	}
	if text("error") != "" {
		t.Errorf("the page shows an error: %s", text("error"))
	}
	refreshes := regexp.MustCompile(`data-refreshes="(\d+)"`).FindStringSubmatch(dom)
	if refreshes == nil || refreshes[1] == "1" {
		t.Errorf("the page did not refresh its figures (data-refreshes %v)", refreshes)
	}
	for _, want := range []string{"<td>Keyspace1</td>", "<td>Standard1, Standard2", "<td>system</td>", "<td>insert</td>", "ROW-MUTATION-STAGE"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page has no %s", want)
		}
	}
	// The insert line: calls/s, errors/s, active, completed (at least the
	// calls made before the page opened), errors.
	m := insertLine.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("no figures on the insert line:\n%s", dom)
	}
	if rate, _ := strconv.ParseFloat(m[1], 64); rate <= 0 {
		t.Errorf("insert calls/s %s while a client inserts", m[1])
	}
	if done, _ := strconv.Atoi(m[3]); done < before {
		t.Errorf("insert completed %s, want at least %d", m[3], before)
	}
	if rate := text("rate"); rate == "–" || rate == "0.0" {
		t.Errorf("calls/s %q while a client inserts", rate)
	}
}
