// Package migrate makes thriftd the proxy of a move off a running
// Cassandra 0.7-3.11 cluster: each client connection of the 19.x API is
// served against an origin (that cluster, reached over its own Thrift
// port) and a target (thriftd's own store), with no downtime and a way
// back until the origin's writes are turned off.
//
//   - Every write goes to the origin first; the client gets the origin's
//     answer. The same call, with the client's timestamps (a deletion
//     without one gets the proxy's, sent to both), then goes to the
//     target; a target write that fails is counted, logged with its key and
//     appended to a durable log (Pending) that is replayed until the target
//     takes it. Timestamps, not the order of arrival, decide between a
//     proxied write, a replayed one and a copied cell.
//   - Reads are answered by the origin, the target, or both: under Both the
//     origin answers and the target's answer is compared, each difference
//     counted and logged with its key.
//   - Schema calls (system_*) are applied to the origin, then to the target;
//     one the target refuses is answered with an InvalidRequestException
//     saying so.
//
// The read and write settings change at run time (SetModes), from the
// admin endpoint and at SIGHUP. The package wraps handler19's per-connection
// service (the target) and knows nothing of its internals.
package migrate

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// Reads says which cluster answers reads.
type Reads int32

const (
	// ReadOrigin answers reads from the origin (before the cutover).
	ReadOrigin Reads = iota
	// ReadBoth answers from the origin and compares the target's answer.
	ReadBoth
	// ReadTarget answers reads from the target (the cutover).
	ReadTarget
)

func (r Reads) String() string {
	switch r {
	case ReadBoth:
		return "both"
	case ReadTarget:
		return "target"
	}
	return "origin"
}

// ParseReads is the inverse of Reads.String.
func ParseReads(s string) (Reads, error) {
	for _, r := range []Reads{ReadOrigin, ReadBoth, ReadTarget} {
		if r.String() == s {
			return r, nil
		}
	}
	return 0, fmt.Errorf("reads: want origin, both or target, not %q", s)
}

// Writes says which clusters take writes.
type Writes int32

const (
	// WriteBoth writes to the origin, then the target (dual writes).
	WriteBoth Writes = iota
	// WriteTarget writes to the target alone: the origin's writes are off,
	// the last step of a cutover, after which going back needs a copy.
	WriteTarget
)

func (w Writes) String() string {
	if w == WriteTarget {
		return "target"
	}
	return "both"
}

// ParseWrites is the inverse of Writes.String.
func ParseWrites(s string) (Writes, error) {
	for _, w := range []Writes{WriteBoth, WriteTarget} {
		if w.String() == s {
			return w, nil
		}
	}
	return 0, fmt.Errorf("writes: want both or target, not %q", s)
}

// CheckModes refuses a combination that would read what is no longer
// written: with the origin's writes off, reads come from the target.
func CheckModes(r Reads, w Writes) error {
	if w == WriteTarget && r != ReadTarget {
		return fmt.Errorf("writes target (origin writes off) needs reads target, not %s: the origin no longer gets the writes", r)
	}
	return nil
}

// Origin is the running Cassandra cluster the data moves off, reached
// over its Thrift port (TFramedTransport, as 0.7 and later speak it).
type Origin struct {
	// Addr is HOST:PORT of the origin's Thrift port (rpc_port).
	Addr string
	// Username and Password, when Username is set, log every origin
	// connection in; the clients' own logins are checked by thriftd.
	Username, Password string
	// TLS, when set, speaks TLS to an origin whose Thrift port has
	// client_encryption_options enabled.
	TLS *tls.Config
	// Timeout bounds each origin call (default 30s).
	Timeout time.Duration
}

// Options configure a Proxy. Origin.Addr, Replay and LogPath are
// required.
type Options struct {
	Origin Origin
	// Reads and Writes are the initial settings.
	Reads  Reads
	Writes Writes
	// Replay returns a target connection for the durable log's replay: a
	// connection of the same service that needs no login (the writes were
	// allowed when the client made them).
	Replay func() cassandra19.Cassandra
	// LogPath is the file of the durable log of target writes that failed.
	LogPath string
	// RetryEvery is how often the log is replayed while it holds writes
	// (default 1s).
	RetryEvery time.Duration
	// Registerer receives the figures (metrics.go); nil keeps them
	// unexported.
	Registerer prometheus.Registerer
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock of deletions sent without a timestamp; nil is
	// time.Now.
	Now func() time.Time
}

// Proxy is the state every proxied connection shares. It is safe for
// concurrent use; Close stops its replay.
type Proxy struct {
	o       Options
	reads   atomic.Int32
	writes  atomic.Int32
	log     *slog.Logger
	m       *metrics
	pending *Pending

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// New opens the durable log and starts its replay.
func New(o Options) (*Proxy, error) {
	if o.Origin.Addr == "" || o.Replay == nil || o.LogPath == "" {
		return nil, fmt.Errorf("migrate: an origin address, a replay connection and a log path are required")
	}
	if err := CheckModes(o.Reads, o.Writes); err != nil {
		return nil, err
	}
	if o.Origin.Timeout == 0 {
		o.Origin.Timeout = 30 * time.Second
	}
	if o.RetryEvery == 0 {
		o.RetryEvery = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Registerer == nil {
		o.Registerer = prometheus.NewRegistry()
	}
	p := &Proxy{o: o, log: o.Logger, stop: make(chan struct{}), done: make(chan struct{})}
	p.m = newMetrics(o.Registerer)
	var err error
	if p.pending, err = OpenPending(o.LogPath, o.Logger); err != nil {
		return nil, err
	}
	p.m.pending.Set(float64(p.pending.Len()))
	p.reads.Store(int32(o.Reads))
	p.writes.Store(int32(o.Writes))
	p.m.setModes(o.Reads, o.Writes)
	go p.replayLoop()
	p.log.Info("migration proxy: serving the 19.x API against the origin and the target",
		"origin", o.Origin.Addr, "reads", o.Reads.String(), "writes", o.Writes.String(),
		"pending_log", o.LogPath, "pending_writes", p.pending.Len())
	return p, nil
}

// Close stops the replay and closes the durable log. Writes still in it
// are replayed at the next start.
func (p *Proxy) Close() error {
	p.once.Do(func() { close(p.stop) })
	<-p.done
	return p.pending.Close()
}

// Modes returns the current read and write settings.
func (p *Proxy) Modes() (Reads, Writes) {
	return Reads(p.reads.Load()), Writes(p.writes.Load())
}

// SetModes changes the settings for the calls that start from now on.
func (p *Proxy) SetModes(r Reads, w Writes) error {
	if err := CheckModes(r, w); err != nil {
		return err
	}
	oldR, oldW := p.Modes()
	p.reads.Store(int32(r))
	p.writes.Store(int32(w))
	p.m.setModes(r, w)
	if oldR != r || oldW != w {
		p.log.Info("migration proxy: settings changed", "reads", r.String(), "writes", w.String(),
			"reads_before", oldR.String(), "writes_before", oldW.String())
	}
	return nil
}

// Status is what the admin endpoint reports of the proxy.
type Status struct {
	Origin  string `json:"origin"`
	Reads   string `json:"reads"`
	Writes  string `json:"writes"`
	Pending int    `json:"pending_writes"`
	LogPath string `json:"pending_log"`
}

// Status returns the settings and the durable log's length.
func (p *Proxy) Status() Status {
	r, w := p.Modes()
	return Status{Origin: p.o.Origin.Addr, Reads: r.String(), Writes: w.String(), Pending: p.pending.Len(), LogPath: p.o.LogPath}
}

// Wrap returns the proxied service of one client connection whose
// target is the 19.x service's connection t.
func (p *Proxy) Wrap(t cassandra19.Cassandra) cassandra19.Cassandra {
	return &conn{p: p, target: t}
}

// replayLoop replays the durable log while it holds writes, until Close.
func (p *Proxy) replayLoop() {
	defer close(p.done)
	tick := time.NewTicker(p.o.RetryEvery)
	defer tick.Stop()
	var target cassandra19.Cassandra
	for {
		select {
		case <-p.stop:
			return
		case <-tick.C:
		}
		if p.pending.Len() == 0 {
			continue
		}
		if target == nil {
			target = p.o.Replay()
		}
		n, err := p.pending.Replay(func(e Entry) error { return apply(context.Background(), target, e) })
		p.m.replayed.Add(float64(n))
		p.m.pending.Set(float64(p.pending.Len()))
		if n > 0 {
			p.log.Info("migration proxy: replayed target writes from the durable log", "writes", n, "still_pending", p.pending.Len())
		}
		if err != nil {
			p.log.Warn("migration proxy: the target still refuses a logged write; retrying", "err", err, "pending_writes", p.pending.Len())
			target = nil // a fresh connection next time: its keyspace may be gone
		}
	}
}
