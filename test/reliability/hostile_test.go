package reliability

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/internal/testenv"
)

// goodClient calls thriftd in a loop on its own connection until stopped,
// failing the test on any error or on a call slower than slow.
type goodClient struct {
	calls   atomic.Int64
	slowest atomic.Int64 // nanoseconds
	stop    chan struct{}
	done    chan struct{}
}

func startGoodClient(t *testing.T, n *node, name string, slow time.Duration) *goodClient {
	g := &goodClient{stop: make(chan struct{}), done: make(chan struct{})}
	c, err := dial(n.Addr, true, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(g.done)
		defer c.Close()
		path := &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}
		for i := int64(1); ; i++ {
			select {
			case <-g.stop:
				return
			default:
			}
			began := time.Now()
			key := fmt.Sprintf("%s-%d", name, i%100)
			if err := c.Insert(ctx, ks1, key, path, value(i), i, one); err != nil {
				t.Errorf("%s: insert: %v", name, err)
				return
			}
			got, err := c.Get(ctx, ks1, key, path, one)
			if err != nil {
				t.Errorf("%s: get: %v", name, err)
				return
			}
			if string(got.Column.Value) != string(value(i)) {
				t.Errorf("%s: get returned %q after writing %q", name, got.Column.Value, value(i))
				return
			}
			took := time.Since(began)
			if took > time.Duration(g.slowest.Load()) {
				g.slowest.Store(int64(took))
			}
			g.calls.Add(2)
		}
	}()
	return g
}

// finish stops the client and checks it was served throughout.
func (g *goodClient) finish(t *testing.T, name string, slow time.Duration) {
	t.Helper()
	close(g.stop)
	<-g.done
	slowest := time.Duration(g.slowest.Load())
	t.Logf("%s: %d calls answered, slowest pair %v", name, g.calls.Load(), slowest)
	if g.calls.Load() < 20 {
		t.Errorf("%s: only %d calls answered", name, g.calls.Load())
	}
	if slowest > slow {
		t.Errorf("%s: a call took %v (limit %v)", name, slowest, slow)
	}
}

// hostileCase is bytes a client sends and what thriftd must do about them.
type hostileCase struct {
	name   string
	framed bool   // the reply, if any, is framed
	send   []byte // sent at once
	// halfClose ends the client's side after send, as a client that
	// crashed mid-request.
	halfClose bool
	// trickle sends one byte a second instead, for this long.
	trickle time.Duration
	// exception, when set, is the TApplicationException type expected;
	// otherwise the connection must be closed.
	exception int32
	// stayOpen: after the exception the connection still serves calls.
	stayOpen bool
	// log is the log record expected for this connection.
	log map[string]string
	// size, when set, is the claimed length the log line must name (in
	// its size field, or in err when the Thrift library refused it).
	size string
}

func hostileCases(t *testing.T) []hostileCase {
	getSlice := encode(t, "get_slice", 1, &cassandra.CassandraGetSliceArgs{
		Keyspace: ks1, Key: "k", ColumnParent: &cassandra.ColumnParent{ColumnFamily: "Standard1"},
		Predicate:        &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 10}},
		ConsistencyLevel: one,
	})
	closed := func(reason string, extra ...string) map[string]string {
		m := map[string]string{"msg": "connection closed", "reason": reason}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	cases := []hostileCase{
		{name: "truncated unframed", send: getSlice[:len(getSlice)/2], halfClose: true, log: closed("truncated request")},
		{name: "truncated framed", framed: true, send: frame(getSlice)[:len(getSlice)/2], halfClose: true, log: closed("truncated request")},
		{name: "frame of 2 GB", framed: true, send: cat(i32(1<<31-1), header("get_slice", 1)),
			log: closed("size limit exceeded", "what", "frame"), size: "2147483647"},
		{name: "string of 2 GB", send: cat(header("get_slice", 1), field(thrift.STRING, 1), i32(1<<31-1), []byte("Keys")),
			log: closed("size limit exceeded"), size: "2147483647"},
		{name: "negative string length", send: cat(header("get_slice", 1), field(thrift.STRING, 1), i32(-5)),
			log: closed("size limit exceeded"), size: "-5"},
		{name: "string longer than its frame", framed: true, send: frame(cat(header("get_slice", 1), field(thrift.STRING, 1), i32(1000), []byte("Keyspace1"))),
			log: closed("malformed request", "err", "message runs past the end of its frame")},
		{name: "list of 2^31-1 keys", framed: true,
			send: frame(cat(header("multiget_slice", 1), str(1, ks1), field(thrift.LIST, 2), []byte{byte(thrift.STRING)}, i32(1<<31-1), i32(1), []byte("k"))),
			log:  closed("size limit exceeded"), size: "2147483647"},
		{name: "list of a million keys in a small frame", framed: true,
			send: frame(cat(header("multiget_slice", 1), str(1, ks1), field(thrift.LIST, 2), []byte{byte(thrift.STRING)}, i32(1_000_000), i32(1), []byte("k"))),
			log:  closed("size limit exceeded", "what", "list"), size: "1000000"},
		{name: "map of 2^30 rows", send: cat(header("batch_mutate", 1), str(1, ks1), field(thrift.MAP, 2), []byte{byte(thrift.STRING), byte(thrift.MAP)}, i32(1<<30)),
			log: closed("size limit exceeded"), size: "1073741824"},
		{name: "wrong field types", framed: true, exception: thrift.PROTOCOL_ERROR, stayOpen: true,
			send: frame(cat(header("get_slice", 1), field(thrift.I32, 1), i32(7), field(thrift.I64, 2), i32(0), i32(1), field(thrift.STRING, 3), i32(1), []byte("x"), stop, stop)),
			log:  map[string]string{"msg": "request failed", "method": "get_slice"}},
		{name: "unknown method", exception: thrift.UNKNOWN_METHOD, stayOpen: true,
			send: cat(header("drop_keyspace", 1), str(1, ks1), stop),
			log:  map[string]string{"msg": "unknown method", "method": "drop_keyspace"}},
		{name: "HTTP request", send: []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), log: closed("size limit exceeded", "what", "method name")},
		{name: "one byte a second", trickle: 8 * time.Second, send: getSlice, log: closed("request timeout")},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 6 {
		b := make([]byte, 1<<(8+2*i))
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		cases = append(cases, hostileCase{name: fmt.Sprintf("%d random bytes", len(b)), send: b, log: map[string]string{"msg": "connection closed"}})
	}
	return cases
}

// TestHostileInput sends, over real sockets, requests meant to crash
// thriftd or exhaust its memory, while a well-behaved client keeps
// working. Each hostile connection gets a TApplicationException or is
// closed with a log line naming it; thriftd's peak memory stays bounded.
func TestHostileInput(t *testing.T) {
	n := startNode(t, fixture(testConf), "-request-timeout", "5s")
	base := n.Status("VmHWM")
	// A bystander held up behind a hostile connection would wait for its
	// request timeout (5 s); a pair of calls slower than stall is that,
	// and anything faster the scheduling of a busy machine (2.2 s seen
	// under the race detector beside other tests).
	const stall = 4 * time.Second
	good := startGoodClient(t, n, "bystander", stall)

	t.Run("cases", func(t *testing.T) {
		for _, tc := range hostileCases(t) {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				c := dialRaw(t, n.Addr)
				if tc.trickle > 0 {
					for i := 0; i < len(tc.send) && time.Duration(i)*time.Second < tc.trickle; i++ {
						if _, err := c.Write(tc.send[i : i+1]); err != nil {
							break // closed by the server: what we expect
						}
						time.Sleep(time.Second)
					}
				} else if _, err := c.Write(tc.send); err != nil {
					t.Fatal(err)
				}
				if tc.halfClose {
					c.Conn.(interface{ CloseWrite() error }).CloseWrite()
				}
				out := c.await(t, tc.framed, 10*time.Second)
				switch {
				case tc.exception != 0:
					if out.exception == nil {
						t.Fatalf("want TApplicationException %d, got %+v", tc.exception, out)
					}
					if out.exception.TypeId() != tc.exception {
						t.Errorf("TApplicationException %d %q, want type %d", out.exception.TypeId(), out.exception.Error(), tc.exception)
					}
					if tc.stayOpen == out.closed {
						t.Errorf("connection closed = %v after the exception", out.closed)
					}
				case !out.closed:
					t.Fatalf("connection still open, got %+v", out)
				}
				want := map[string]string{"peer": c.peer()}
				for k, v := range tc.log {
					want[k] = v
				}
				rec := n.WaitLog(t, 5*time.Second, want)
				if tc.size != "" && testenv.LogValue(rec["size"]) != tc.size && !strings.Contains(fmt.Sprint(rec["err"]), tc.size) {
					t.Errorf("the log line does not name the size %s: %v", tc.size, rec)
				}
				if out.exception != nil {
					t.Logf("%s: TApplicationException %d %q; log: %v", tc.name, out.exception.TypeId(), out.exception.Error(), rec)
				} else {
					t.Logf("%s: closed; log: %v %v", tc.name, rec["reason"], rec["err"])
				}
				if tc.stayOpen {
					call := encode(t, "describe_version", 2, &cassandra.CassandraDescribeVersionArgs{})
					if tc.framed {
						call = frame(call)
					}
					c.Write(call)
					if out := c.await(t, tc.framed, 5*time.Second); !out.reply {
						t.Errorf("the connection no longer serves calls: %+v", out)
					}
				}
			})
		}
	})

	t.Run("memory", func(t *testing.T) {
		// Many connections each claim the largest message allowed and
		// send only its start: a server that reserved memory for claimed
		// lengths would need tens of gigabytes here.
		const conns = 300
		var wg sync.WaitGroup
		claim := int32(16<<20 - 1)
		for i := range conns {
			c := dialRaw(t, n.Addr)
			var msg []byte
			switch i % 3 {
			case 0: // a string filling the frame
				msg = cat(i32(claim), header("get_slice", 1), field(thrift.STRING, 1), i32(claim-100), make([]byte, 1000))
			case 1: // a million rows of mutations, at their smallest encoding
				// (a map, unlike a list, is written to as soon as it is made)
				msg = cat(i32(claim), header("batch_mutate", 1), str(1, ks1), field(thrift.MAP, 2), []byte{byte(thrift.STRING), byte(thrift.MAP)}, i32(1_000_000), make([]byte, 1000))
			case 2: // unframed: a value of 15 MiB
				msg = cat(header("insert", 1), str(1, ks1), str(2, "k"), field(thrift.STRUCT, 3), str(3, "Standard1"), field(thrift.STRING, 4), i32(15<<20), make([]byte, 1000))
			}
			if _, err := c.Write(msg); err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if out := c.await(t, i%3 != 2, 15*time.Second); !out.closed {
					t.Errorf("connection %d: %+v", i, out)
				}
			}()
		}
		wg.Wait()
	})

	good.finish(t, "bystander", stall)
	peak := n.Status("VmHWM")
	t.Logf("thriftd peak RSS (VmHWM): %d KiB after start-up, %d KiB after the hostile input", base, peak)
	const bound = 256 << 10 // KiB
	if peak > bound {
		t.Errorf("peak RSS %d KiB exceeds %d KiB", peak, bound)
	}
	// thriftd is still healthy.
	if v, err := n.Client(false).DescribeVersion(ctx); err != nil || v != "2.2.0" {
		t.Errorf("describe_version after the hostile input: %q %v", v, err)
	}
	if n.Records(map[string]string{"level": "ERROR"}) != nil {
		t.Errorf("errors logged:\n%v", n.Records(map[string]string{"level": "ERROR"}))
	}
}
