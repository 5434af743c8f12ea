package reliability

import (
	"bytes"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// TestManyConnections holds 1,000 idle connections open while 64 busy ones
// write and read; every call is answered, and once all of them disconnect
// thriftd holds no more sockets and runs no more goroutines than before.
func TestManyConnections(t *testing.T) {
	idle, busy, calls := 1000, 64, 100
	if longRun {
		idle, busy, calls = 5000, 256, 1000
	}
	// The default -max-connections (4096) is below the long version's count.
	n := startNode(t, fixture(testConf), "-max-connections", fmt.Sprint(idle+busy+1), "-pprof", "127.0.0.1:0")
	profiles := fmt.Sprint(n.WaitLog(t, 5*time.Second, map[string]string{"msg": "serving runtime profiles"})["addr"])
	// One call first, so that everything opened lazily is open.
	if _, err := n.Client(false).DescribeVersion(ctx); err != nil {
		t.Fatal(err)
	}
	fdsBefore, socketsBefore, threadsBefore := n.FDs(), n.Sockets(), n.Status("Threads")
	goroutinesBefore := goroutines(t, profiles)

	idlers := make([]*client, idle)
	for i := range idlers {
		c, err := dial(n.Addr, i%2 == 0, 60*time.Second)
		if err != nil {
			t.Fatalf("idle connection %d: %v", i, err)
		}
		idlers[i] = c
	}
	var wg sync.WaitGroup
	errs := make(chan error, busy)
	for b := range busy {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := dial(n.Addr, b%2 == 1, 60*time.Second)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			p := &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}
			for i := range calls {
				key := fmt.Sprintf("busy%d-%d", b, i)
				if err := c.Insert(ctx, ks1, key, p, value(int64(i)), 1, one); err != nil {
					errs <- fmt.Errorf("busy %d insert: %w", b, err)
					return
				}
				got, err := c.Get(ctx, ks1, key, p, one)
				if err != nil {
					errs <- fmt.Errorf("busy %d get: %w", b, err)
					return
				}
				if !bytes.Equal(got.Column.Value, value(int64(i))) {
					errs <- fmt.Errorf("busy %d: read %q", b, got.Column.Value)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	open, socketsOpen, goroutinesOpen := n.FDs(), n.Sockets(), goroutines(t, profiles)
	// The idle connections are still served.
	for i, c := range idlers {
		if v, err := c.DescribeVersion(ctx); err != nil || v != "2.2.0" {
			t.Fatalf("idle connection %d: %q %v", i, v, err)
		}
	}
	rss := n.Status("VmHWM")
	for _, c := range idlers {
		c.Close()
	}
	// thriftd notices each hang-up at its own pace.
	var socketsAfter, goroutinesAfter int
	deadline := time.Now().Add(2 * time.Minute)
	for {
		socketsAfter, goroutinesAfter = n.Sockets(), goroutines(t, profiles)
		if socketsAfter <= socketsBefore && goroutinesAfter <= goroutinesBefore || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("%d idle + %d busy connections (%d calls each): fds %d before, %d with the idle ones open, %d after (sockets %d, %d, %d); goroutines %d, %d, %d; threads %d before, %d after; peak RSS %d KiB",
		idle, busy, 2*calls, fdsBefore, open, n.FDs(), socketsBefore, socketsOpen, socketsAfter, goroutinesBefore, goroutinesOpen, goroutinesAfter, threadsBefore, n.Status("Threads"), rss)
	if goroutinesOpen < goroutinesBefore+idle {
		t.Errorf("only %d goroutines with %d connections open: the count does not see connections", goroutinesOpen, idle)
	}
	if goroutinesAfter > goroutinesBefore {
		t.Errorf("goroutines leaked: %d before, %d after every client disconnected", goroutinesBefore, goroutinesAfter)
	}
	if socketsOpen < socketsBefore+idle {
		t.Errorf("only %d sockets with %d connections open: the count does not see connections", socketsOpen, idle)
	}
	// Sockets, not all descriptors: LevelDB may have opened a table file
	// for the data written meanwhile.
	if socketsAfter > socketsBefore {
		t.Errorf("connections leaked: %d sockets before, %d after every client disconnected", socketsBefore, socketsAfter)
	}
}

// goroutines reads thriftd's goroutine count from its profile server (the
// first line of /debug/pprof/goroutine?debug=1 is "goroutine profile:
// total N").
func goroutines(t *testing.T, addr string) int {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var n int
	if _, err := fmt.Fscanf(resp.Body, "goroutine profile: total %d", &n); err != nil {
		t.Fatalf("goroutine profile: %v", err)
	}
	return n
}

// TestLimits checks the documented connection limits of the binary:
// -max-connections, -idle-timeout and -max-message-mb.
func TestLimits(t *testing.T) {
	t.Run("max connections", func(t *testing.T) {
		n := startNode(t, fixture(testConf), "-max-connections", "20")
		var cs []*client
		for range 20 {
			c := n.Client(true)
			if _, err := c.DescribeVersion(ctx); err != nil {
				t.Fatal(err)
			}
			cs = append(cs, c)
		}
		extra := dialRaw(t, n.Addr)
		extra.Write(frame(encode(t, "describe_version", 1, &cassandra.CassandraDescribeVersionArgs{})))
		if out := extra.await(t, true, 5*time.Second); !out.closed || out.exception != nil {
			t.Errorf("connection 21: %+v, want closed", out)
		}
		n.WaitLog(t, 5*time.Second, map[string]string{"msg": "connection refused: too many open connections", "peer": extra.peer(), "limit": "20"})
		// A slot freed is a slot usable.
		cs[0].Close()
		time.Sleep(200 * time.Millisecond)
		if _, err := n.Client(false).DescribeVersion(ctx); err != nil {
			t.Errorf("after one client left: %v", err)
		}
	})
	t.Run("idle timeout", func(t *testing.T) {
		n := startNode(t, fixture(testConf), "-idle-timeout", "1s")
		c := dialRaw(t, n.Addr)
		began := time.Now()
		if out := c.await(t, false, 10*time.Second); !out.closed {
			t.Fatalf("idle connection: %+v", out)
		}
		if took := time.Since(began); took < 900*time.Millisecond || took > 5*time.Second {
			t.Errorf("idle connection closed after %v, want about 1s", took)
		}
		n.WaitLog(t, 5*time.Second, map[string]string{"msg": "connection closed", "reason": "idle timeout", "peer": c.peer()})
		// A connection in use is not idle.
		cl := n.Client(true)
		for range 4 {
			time.Sleep(500 * time.Millisecond)
			if _, err := cl.DescribeVersion(ctx); err != nil {
				t.Fatalf("busy connection closed: %v", err)
			}
		}
	})
	t.Run("max message size", func(t *testing.T) {
		n := startNode(t, fixture(testConf), "-max-message-mb", "1")
		p := &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}
		if err := n.Client(true).Insert(ctx, ks1, "small", p, make([]byte, 1000_000), 1, one); err != nil {
			t.Errorf("a 1,000,000-byte value under a 1 MiB limit: %v", err)
		}
		c := dialRaw(t, n.Addr)
		c.Write(frame(encode(t, "insert", 1, &cassandra.CassandraInsertArgs{Keyspace: ks1, Key: "big", ColumnPath: p, Value: make([]byte, 1100_000), Timestamp: 1, ConsistencyLevel: one})))
		if out := c.await(t, true, 5*time.Second); !out.closed {
			t.Errorf("a 1,100,000-byte frame: %+v, want closed", out)
		}
		n.WaitLog(t, 5*time.Second, map[string]string{"msg": "connection closed", "reason": "size limit exceeded", "what": "frame", "peer": c.peer(), "limit": fmt.Sprint(1 << 20)})
	})
}
