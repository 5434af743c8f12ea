package testenv

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strings"
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
	c.Timeout = 30 * time.Second
	c.ConnectTimeout = 10 * time.Second
	c.Consistency = gocql.One
	s, err := c.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connect to Cassandra at %s: %w", hostPort, err)
	}
	return s, nil
}
