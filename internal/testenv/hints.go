package testenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// AwaitHintsDelivered waits until no node of the cluster at points
// ("HOST:PORT,...") holds a hint for another node (each node's
// system_views.pending_hints is empty), and returns how long that took.
//
// A test that killed a node must wait for this before it drops a keyspace.
// Cassandra 5.0 drops a keyspace's tables one after another, and a hint for
// a table already dropped that lands before the last one is (hints go on
// being delivered to a restarted node for a minute or more on a busy
// machine) leaves that table dirty in the commit log while its schema is
// still known; the drop's flush of the commit log then fails with
// "java.lang.IllegalArgumentException: Unknown CF <id>", the keyspace is
// left half dropped on that node, and every later schema change it
// coordinates fails the same way until it restarts.
func AwaitHintsDelivered(ctx context.Context, points string) (time.Duration, error) {
	start := time.Now()
	hosts := strings.Split(points, ",")
	sessions := make([]*gocql.Session, len(hosts))
	defer func() {
		for _, s := range sessions {
			if s != nil {
				s.Close()
			}
		}
	}()
	for {
		var pending []string
		for i, h := range hosts {
			// A node that cannot answer (not up yet) may hold hints: ask
			// again.
			if sessions[i] == nil {
				s, err := hostSession(h)
				if err != nil {
					pending = append(pending, err.Error())
					continue
				}
				sessions[i] = s
			}
			qctx, cancel := context.WithTimeout(ctx, 15*time.Second)
			iter := sessions[i].Query(`SELECT address, files FROM system_views.pending_hints`).WithContext(qctx).Iter()
			var addr net.IP
			var files int
			for iter.Scan(&addr, &files) {
				if files > 0 {
					pending = append(pending, fmt.Sprintf("%s holds %d hint file(s) for %s", h, files, addr))
				}
			}
			if err := iter.Close(); err != nil {
				pending = append(pending, fmt.Sprintf("%s: %v", h, err))
			}
			cancel()
		}
		if len(pending) == 0 {
			return time.Since(start), nil
		}
		select {
		case <-ctx.Done():
			sort.Strings(pending)
			return time.Since(start), fmt.Errorf("hints not delivered after %.0f s: %s", time.Since(start).Seconds(), strings.Join(pending, "; "))
		case <-time.After(time.Second):
		}
	}
}

// hostSession connects to the one node at hostPort and to no other: a
// virtual table answers for the node that is asked.
func hostSession(hostPort string) (*gocql.Session, error) {
	host, _, err := net.SplitHostPort(hostPort)
	if err != nil {
		return nil, err
	}
	c := gocql.NewCluster(hostPort)
	c.DisableInitialHostLookup = true
	c.HostFilter = gocql.WhiteListHostFilter(host)
	return newSession(c, hostPort, 30*time.Second)
}

// SettleHints makes sure that no hint lands on a node of the test cluster
// name (its contact points found as CassandraCluster finds them) while the test's keyspaces are dropped, and
// returns the function that resumes hint delivery once they are. Hints are
// given wait to be delivered; on a busy machine delivery can crawl (a page
// whose answers come back late is sent again from its start), so hints
// still held then are discarded instead: every node pauses its delivery
// (nodetool pausehandoff) and deletes its hints (truncatehints), and after
// a hint's time to live in flight (write_request_timeout, 2 s on the test
// nodes) none can land. The hints are the test's own, for the keyspaces
// about to be dropped.
func SettleHints(t testing.TB, name string, wait time.Duration) (resume func()) {
	t.Helper()
	points := CassandraCluster(t, name)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	took, err := AwaitHintsDelivered(ctx, points)
	cancel()
	if err == nil {
		if took > time.Second {
			t.Logf("the nodes' hints were delivered %.1f s after the test ended", took.Seconds())
		}
		return func() {}
	}
	t.Logf("%v; pausing hint delivery and deleting the hints", err)
	nodes := len(strings.Split(points, ","))
	nodetoolAll(t, name, nodes, "pausehandoff")
	resume = func() { nodetoolAll(t, name, nodes, "resumehandoff") }
	for attempt := 0; ; attempt++ {
		nodetoolAll(t, name, nodes, "truncatehints")
		time.Sleep(5 * time.Second)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := AwaitHintsDelivered(ctx, points)
		cancel()
		if err == nil {
			return resume
		}
		if attempt == 2 {
			resume()
			t.Fatalf("hints left after pausing delivery and deleting them three times: %v", err)
		}
	}
}

// nodetoolAll runs nodetool with args against nodes 1 to nodes of the test
// cluster name at once (each is a JVM that takes seconds to start).
func nodetoolAll(t testing.TB, name string, nodes int, args ...string) {
	t.Helper()
	errs := make([]error, nodes)
	var wg sync.WaitGroup
	for i := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			argv := append([]string{"nodetool", name, strconv.Itoa(i + 1)}, args...)
			if out, err := exec.CommandContext(ctx, ClusterScript(), argv...).CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("%s %s: %v\n%s", ClusterScript(), strings.Join(argv, " "), err, out)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}
