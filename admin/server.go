package admin

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"

	"github.com/thriftd/thriftd/auth"
	"github.com/thriftd/thriftd/engine"
	"github.com/thriftd/thriftd/rpcmetrics"
	"github.com/thriftd/thriftd/schema"
)

// DefaultAddr is where the endpoint listens unless told otherwise: on
// loopback, beside the Thrift port 9160.
const DefaultAddr = "127.0.0.1:9161"

// Node is what the endpoint reports about the node it serves.
type Node struct {
	Address     string
	Token       string
	ClusterName string
	Partitioner string
	Started     time.Time
	// Store says where the data lives, for the status page: "leveldb DIR"
	// or "cassandra HOSTS".
	Store string
}

// Options configure a Server. Registry, Store and Schema are required.
type Options struct {
	// Addr is HOST:PORT to listen on; port 0 picks a free port.
	Addr string
	// Token, when set, must be presented as "Authorization: Bearer TOKEN"
	// for the commands and the profiles (never for /metrics). Listen
	// refuses an address other than loopback without one.
	Token string
	// Registry is served on /metrics and read by tpstats and cfstats.
	Registry *prometheus.Registry
	Node     Node
	// Store is the node's store; the commands use the optional interfaces
	// of package engine that it implements.
	Store  engine.Store
	Schema *schema.Schema
	// Current, when set, returns the schema to use instead of Schema (the
	// schema catalog's, which changes at run time).
	Current func() *schema.Schema
	// Drain stops the Thrift server gracefully (no new connections, calls
	// in flight finish); the endpoint then flushes the store. Nil answers
	// that drain is not available.
	Drain func(context.Context) error
	// Roles are the node's own roles and permissions (PasswordAuthenticator
	// on the LevelDB store), which /v1/roles and /v1/permissions manage;
	// nil answers that the node keeps none. RolesChanged is called after
	// each change (the Guard's Forget, so that it is seen at once).
	Roles        *auth.Local
	RolesChanged func()
	// Migration is the migration proxy's settings, which /v1/migration
	// reports and changes; nil answers that the node proxies no origin.
	Migration Migration
	Logger    *slog.Logger
}

// Server is a running admin endpoint.
type Server struct {
	o       Options
	l       net.Listener
	http    *http.Server
	served  chan struct{}
	drained atomic.Bool
	log     *slog.Logger
}

// IsLoopback reports whether host (a name or an address) is loopback only.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Listen binds the endpoint and starts serving it on a goroutine that
// Shutdown stops. A taken port, or an address other than loopback without
// a token, is an error that says what to do.
func Listen(o Options) (*Server, error) {
	host, _, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return nil, fmt.Errorf("-admin %q: want HOST:PORT or off: %v", o.Addr, err)
	}
	if !IsLoopback(host) && o.Token == "" {
		return nil, fmt.Errorf("-admin %s is not a loopback address: the admin commands and profiles would be open to the network; give a bearer token with -admin-token-file FILE, or listen on 127.0.0.1", o.Addr)
	}
	l, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen for the admin endpoint on %s: %w (choose another address with -admin HOST:PORT, or -admin off)", o.Addr, err)
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s := &Server{o: o, l: l, served: make(chan struct{}), log: o.Logger}
	s.http = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(o.Logger.Handler(), slog.LevelWarn)}
	go func() {
		defer close(s.served)
		if err := s.http.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("admin endpoint stopped", "addr", l.Addr().String(), "err", err)
		}
	}()
	return s, nil
}

// Addr is where the endpoint listens.
func (s *Server) Addr() net.Addr { return s.l.Addr() }

// Shutdown stops the endpoint, waiting for requests in flight until ctx
// ends, and returns once its goroutine has.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.http.Shutdown(ctx)
	if err != nil {
		s.http.Close()
	}
	<-s.served
	return err
}

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", statusHTML)
	mux.HandleFunc("GET /status", statusHTML)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.o.Registry, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}))
	mux.Handle("/debug/pprof/", s.auth(http.HandlerFunc(pprof.Index)))
	mux.Handle("/debug/pprof/cmdline", s.auth(http.HandlerFunc(pprof.Cmdline)))
	mux.Handle("/debug/pprof/profile", s.auth(http.HandlerFunc(pprof.Profile)))
	mux.Handle("/debug/pprof/symbol", s.auth(http.HandlerFunc(pprof.Symbol)))
	mux.Handle("/debug/pprof/trace", s.auth(http.HandlerFunc(pprof.Trace)))
	// A store's own debug aids (the Cassandra store's statement recorder).
	if d, ok := s.o.Store.(interface{ DebugHandler() http.Handler }); ok {
		mux.Handle("/debug/store/", s.auth(http.StripPrefix("/debug/store", d.DebugHandler())))
	}
	api := map[string]func(*http.Request) (any, error){
		"GET /v1/info":           s.info,
		"GET /v1/status":         s.status,
		"GET /v1/ring":           s.ring,
		"GET /v1/tpstats":        s.tpstats,
		"GET /v1/cfstats":        s.cfstats,
		"GET /v1/snapshots":      s.snapshots,
		"POST /v1/flush":         s.flush,
		"POST /v1/compact":       s.compact,
		"POST /v1/snapshot":      s.snapshot,
		"POST /v1/clearsnapshot": s.clearSnapshot,
		"POST /v1/drain":         s.drain,
		"GET /v1/roles":          s.listRoles,
		"POST /v1/roles":         s.changeRoles,
		"GET /v1/permissions":    s.listPermissions,
		"GET /v1/migration":      s.migration,
		"POST /v1/migration":     s.setMigration,
	}
	for pattern, fn := range api {
		mux.Handle(pattern, s.auth(s.jsonHandler(pattern, fn)))
	}
	return mux
}

// auth requires the bearer token, when one is configured.
func (s *Server) auth(h http.Handler) http.Handler {
	if s.o.Token == "" {
		return h
	}
	want := []byte("Bearer " + s.o.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			s.log.Warn("admin request refused: missing or wrong bearer token", "peer", r.RemoteAddr, "path", r.URL.Path)
			w.Header().Set("WWW-Authenticate", `Bearer realm="thriftd"`)
			writeJSON(w, http.StatusUnauthorized, Error{Error: "this endpoint requires the bearer token of -admin-token-file (send Authorization: Bearer TOKEN)"})
			return
		}
		h.ServeHTTP(w, r)
	})
}

// statusError carries an HTTP status with its message.
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string { return e.msg }

func badRequest(format string, a ...any) error {
	return &statusError{http.StatusBadRequest, fmt.Sprintf(format, a...)}
}

func unsupported(what string) error {
	return &statusError{http.StatusNotImplemented, "this node's store does not support " + what}
}

func (s *Server) jsonHandler(pattern string, fn func(*http.Request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := fn(r)
		if err != nil {
			code := http.StatusInternalServerError
			var se *statusError
			if errors.As(err, &se) {
				code = se.code
			}
			if code >= 500 {
				s.log.Error("admin command failed", "route", pattern, "peer", r.RemoteAddr, "err", err)
			}
			writeJSON(w, code, Error{Error: err.Error()})
			return
		}
		if r.Method == http.MethodPost {
			s.log.Info("admin command", "route", pattern, "query", r.URL.RawQuery, "peer", r.RemoteAddr)
		}
		writeJSON(w, http.StatusOK, v)
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

func (s *Server) load() (int64, error) {
	st, ok := s.o.Store.(engine.Statser)
	if !ok {
		return 0, nil
	}
	stats, err := st.StoreStats()
	return stats.LiveBytes, err
}

func (s *Server) info(*http.Request) (any, error) {
	load, err := s.load()
	if err != nil {
		return nil, err
	}
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/total:bytes"}}
	metrics.Read(samples)
	mb := func(v metrics.Value) float64 {
		if v.Kind() != metrics.KindUint64 {
			return 0
		}
		return float64(v.Uint64()) / (1 << 20)
	}
	n := s.o.Node
	return Info{
		Token:         n.Token,
		Address:       n.Address,
		ClusterName:   n.ClusterName,
		Partitioner:   n.Partitioner,
		Load:          FileSize(load),
		LoadBytes:     load,
		GenerationNo:  n.Started.Unix(),
		UptimeSeconds: int64(time.Since(n.Started).Seconds()),
		HeapUsedMB:    mb(samples[0].Value),
		HeapMaxMB:     mb(samples[1].Value),
		Drained:       s.drained.Load(),
	}, nil
}

func (s *Server) ring(*http.Request) (any, error) {
	load, err := s.load()
	if err != nil {
		return nil, err
	}
	status := "Up"
	if s.drained.Load() {
		status = "Down"
	}
	return []RingEntry{{Address: s.o.Node.Address, Status: status, Load: FileSize(load), LoadBytes: load, Owns: 100, Token: s.o.Node.Token}}, nil
}

// families gathers the registry by metric name.
func (s *Server) families() (map[string]*dto.MetricFamily, error) {
	fams, err := s.o.Registry.Gather()
	if err != nil {
		return nil, err
	}
	out := make(map[string]*dto.MetricFamily, len(fams))
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out, nil
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func (s *Server) tpstats(*http.Request) (any, error) {
	fams, err := s.families()
	if err != nil {
		return nil, err
	}
	pools := map[string]*Pool{}
	pool := func(name string) *Pool {
		p := pools[name]
		if p == nil {
			p = &Pool{Name: name}
			pools[name] = p
		}
		return p
	}
	for _, m := range fams[rpcmetrics.MetricActive].GetMetric() {
		pool(label(m, "method")).Active = int64(m.GetGauge().GetValue())
	}
	for _, m := range fams[rpcmetrics.MetricCalls].GetMetric() {
		pool(label(m, "method")).Completed = int64(m.GetCounter().GetValue())
	}
	for _, m := range fams[rpcmetrics.MetricErrors].GetMetric() {
		pool(label(m, "method")).Errors += int64(m.GetCounter().GetValue())
	}
	for _, m := range fams[rpcmetrics.MetricDuration].GetMetric() {
		h := m.GetHistogram()
		if h.GetSampleCount() > 0 {
			pool(label(m, "method")).LatencyMs = h.GetSampleSum() / float64(h.GetSampleCount()) * 1000
		}
	}
	out := make([]Pool, 0, len(pools)+len(stages))
	for _, p := range pools {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	for _, st := range stages {
		sum := Pool{Name: st.name}
		var ms float64
		for _, m := range st.methods {
			if p := pools[m]; p != nil {
				sum.Active += p.Active
				sum.Completed += p.Completed
				sum.Errors += p.Errors
				ms += p.LatencyMs * float64(p.Completed)
			}
		}
		if sum.Completed > 0 {
			sum.LatencyMs = ms / float64(sum.Completed)
		}
		out = append(out, sum)
	}
	return out, nil
}

// stages are 0.6's read and write stages, summed over the methods whose
// work 0.6 ran on them, so that scripts watching them keep working.
var stages = []struct {
	name    string
	methods []string
}{
	{"ROW-READ-STAGE", []string{"get", "get_slice", "multiget", "multiget_slice", "get_count", "get_range_slice", "get_range_slices"}},
	{"ROW-MUTATION-STAGE", []string{"insert", "batch_insert", "remove", "batch_mutate"}},
}

// latency is 0.6's count of one column family's reads or writes, rows
// (a counter of rows), and their mean latency in milliseconds: the time the
// calls spent in the store (the histogram durations' sum) shared between
// their rows, 0 when there are none.
func latency(fams map[string]*dto.MetricFamily, durations, rows, keyspace, cf string) (int64, float64) {
	var n, sum float64
	for _, m := range fams[rows].GetMetric() {
		if label(m, "keyspace") == keyspace && label(m, "column_family") == cf {
			n = m.GetCounter().GetValue()
		}
	}
	for _, m := range fams[durations].GetMetric() {
		if label(m, "keyspace") == keyspace && label(m, "column_family") == cf {
			sum = m.GetHistogram().GetSampleSum()
		}
	}
	if n == 0 {
		return 0, 0
	}
	return int64(n), sum / n * 1000
}

func (s *Server) cfstats(r *http.Request) (any, error) {
	ks, cf := r.URL.Query().Get("keyspace"), r.URL.Query().Get("cf")
	if err := s.checkScope(ks, cf); err != nil {
		return nil, err
	}
	fams, err := s.families()
	if err != nil {
		return nil, err
	}
	statser, _ := s.o.Store.(engine.Statser)
	var pending int64
	if statser != nil {
		st, err := statser.StoreStats()
		if err != nil {
			return nil, err
		}
		pending = int64(st.PendingCompactions)
	}
	out := []KeyspaceStats{}
	sch := s.schema()
	for _, name := range sch.KeyspaceNames() {
		if ks != "" && name != ks {
			continue
		}
		k := sch.Keyspaces[name]
		kst := KeyspaceStats{Name: name, PendingTasks: pending, ColumnFamilies: []FamilyStats{}}
		var readMs, writeMs float64
		cfs := make([]string, 0, len(k.ColumnFamilies))
		for n := range k.ColumnFamilies {
			cfs = append(cfs, n)
		}
		sort.Strings(cfs)
		for _, n := range cfs {
			f := FamilyStats{Name: n, PendingTasks: pending}
			f.ReadCount, f.ReadLatencyMs = latency(fams, rpcmetrics.MetricReads, rpcmetrics.MetricRowsRead, name, n)
			f.WriteCount, f.WriteLatencyMs = latency(fams, rpcmetrics.MetricWrites, rpcmetrics.MetricRowsWritten, name, n)
			kst.ReadCount += f.ReadCount
			kst.WriteCount += f.WriteCount
			readMs += f.ReadLatencyMs * float64(f.ReadCount)
			writeMs += f.WriteLatencyMs * float64(f.WriteCount)
			if statser != nil {
				fs, err := statser.FamilyStats(name, n)
				if err != nil {
					return nil, err
				}
				f.SSTableCount, f.SpaceUsedLive, f.SpaceUsedTotal = fs.Tables, fs.LiveBytes, fs.TotalBytes
			}
			if cf == "" || cf == n {
				kst.ColumnFamilies = append(kst.ColumnFamilies, f)
			}
		}
		if kst.ReadCount > 0 {
			kst.ReadLatencyMs = readMs / float64(kst.ReadCount)
		}
		if kst.WriteCount > 0 {
			kst.WriteLatencyMs = writeMs / float64(kst.WriteCount)
		}
		out = append(out, kst)
	}
	return out, nil
}

// flush writes the memtable out. Every column family shares it, so the
// keyspace and column families nodetool named (keyspace, cf repeated) are
// only checked: a name the schema lacks flushes nothing.
func (s *Server) flush(r *http.Request) (any, error) {
	f, ok := s.o.Store.(engine.Flusher)
	if !ok {
		return nil, unsupported("flush")
	}
	q := r.URL.Query()
	if err := s.checkScope(q.Get("keyspace"), q["cf"]...); err != nil {
		return nil, err
	}
	start := time.Now()
	if err := f.Flush(r.Context()); err != nil {
		return nil, err
	}
	return Done{Command: "flush", Took: time.Since(start)}, nil
}

func (s *Server) compact(r *http.Request) (any, error) {
	c, ok := s.o.Store.(engine.Compacter)
	if !ok {
		return nil, unsupported("compact")
	}
	ks, cf := r.URL.Query().Get("keyspace"), r.URL.Query().Get("cf")
	if err := s.checkScope(ks, cf); err != nil {
		return nil, err
	}
	start := time.Now()
	if err := c.Compact(r.Context(), ks, cf); err != nil {
		return nil, err
	}
	return Done{Command: "compact", Keyspace: ks, Family: cf, Took: time.Since(start)}, nil
}

// schema is the current schema.
func (s *Server) schema() *schema.Schema {
	if s.o.Current != nil {
		return s.o.Current()
	}
	return s.o.Schema
}

// checkScope refuses a keyspace or column family the schema lacks, and
// column families without their keyspace; empty names are no restriction.
func (s *Server) checkScope(keyspace string, cfs ...string) error {
	sch := s.schema()
	if keyspace != "" && sch.Keyspace(keyspace) == nil {
		return badRequest("unknown keyspace %s", keyspace)
	}
	for _, cf := range cfs {
		switch {
		case cf == "":
		case keyspace == "":
			return badRequest("a column family needs its keyspace")
		case sch.ColumnFamily(keyspace, cf) == nil:
			return badRequest("unknown column family %s.%s", keyspace, cf)
		}
	}
	return nil
}

func (s *Server) snapshotter() (engine.Snapshotter, error) {
	sn, ok := s.o.Store.(engine.Snapshotter)
	if !ok {
		return nil, unsupported("snapshots")
	}
	return sn, nil
}

func (s *Server) snapshot(r *http.Request) (any, error) {
	sn, err := s.snapshotter()
	if err != nil {
		return nil, err
	}
	name := r.URL.Query().Get("name")
	if strings.ContainsAny(name, "/\\") || name == "." || name == ".." {
		return nil, badRequest("snapshot name %q: a name, not a path", name)
	}
	start := time.Now()
	info, err := sn.Snapshot(r.Context(), name)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	return Done{Command: "snapshot", Snapshot: &info, Took: time.Since(start)}, nil
}

func (s *Server) clearSnapshot(r *http.Request) (any, error) {
	sn, err := s.snapshotter()
	if err != nil {
		return nil, err
	}
	name := r.URL.Query().Get("name")
	start := time.Now()
	removed, err := sn.ClearSnapshot(name)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	return Done{Command: "clearsnapshot", Removed: removed, Took: time.Since(start)}, nil
}

func (s *Server) snapshots(*http.Request) (any, error) {
	sn, err := s.snapshotter()
	if err != nil {
		return nil, err
	}
	list, err := sn.Snapshots()
	if list == nil {
		list = []engine.SnapshotInfo{}
	}
	return list, err
}

func (s *Server) drain(r *http.Request) (any, error) {
	if s.o.Drain == nil {
		return nil, &statusError{http.StatusNotImplemented, "drain is not available on this node"}
	}
	start := time.Now()
	if err := s.o.Drain(r.Context()); err != nil {
		return nil, err
	}
	if f, ok := s.o.Store.(engine.Flusher); ok {
		if err := f.Flush(r.Context()); err != nil {
			return nil, fmt.Errorf("drained, but the flush failed: %w", err)
		}
	}
	s.drained.Store(true)
	s.log.Info("drained: Thrift clients are no longer served and the store is flushed; stop thriftd with SIGTERM")
	return Done{Command: "drain", Took: time.Since(start)}, nil
}

// FileSize renders a byte count as 0.6's FileUtils.stringifyFileSize did:
// at most two decimals, in bytes, KB, MB, GB or TB (powers of 1024).
func FileSize(n int64) string {
	v := float64(n)
	units := []struct {
		size float64
		name string
	}{{1 << 40, "TB"}, {1 << 30, "GB"}, {1 << 20, "MB"}, {1 << 10, "KB"}}
	for _, u := range units {
		if v >= u.size {
			return twoDecimals(v/u.size) + " " + u.name
		}
	}
	return twoDecimals(v) + " bytes"
}

// twoDecimals is Java's DecimalFormat("#.##") (half-even rounding).
func twoDecimals(v float64) string {
	v = math.RoundToEven(v*100) / 100
	return strconv.FormatFloat(v, 'f', -1, 64)
}
