package admin

import (
	_ "embed"
	"net/http"
	"runtime"
	"runtime/debug"
	"sort"

	"github.com/thriftd/thriftd/rpcmetrics"
)

// Version is thriftd's version, set at build time with
// -ldflags "-X github.com/thriftd/thriftd/admin.Version=V" (deploy/stage
// does); when empty, the module version and VCS revision Go recorded in
// the binary stand in.
var Version string

// version is Version, or what the binary's build information says.
func version() string {
	if Version != "" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if len(s.Value) > 12 {
				s.Value = s.Value[:12]
			}
			v += " " + s.Value
		case "vcs.modified":
			if s.Value == "true" {
				v += "+modified"
			}
		}
	}
	return v
}

// SlowCallSeconds is the latency above which the status page counts a
// call as slow: the bound of the call duration histogram's bucket nearest
// 100 ms (50 µs doubled 11 times, 102.4 ms).
const SlowCallSeconds = 0.1024

// Status answers GET /v1/status: what the status page shows, in one
// request (thriftd-tool info, ring and tpstats, with the version, the
// store and the keyspaces).
type Status struct {
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
	// Store says where the data lives: "leveldb DIR" or "cassandra HOSTS".
	Store    string           `json:"store"`
	Info     Info             `json:"info"`
	Ring     []RingEntry      `json:"ring"`
	Keyspace []KeyspaceStatus `json:"keyspaces"`
	// Methods are tpstats' lines of the Thrift methods, with each one's
	// calls slower than SlowMs since thriftd started.
	Methods []MethodStatus `json:"methods"`
	SlowMs  float64        `json:"slow_ms"`
}

// KeyspaceStatus is one keyspace of GET /v1/status.
type KeyspaceStatus struct {
	Name           string   `json:"name"`
	ColumnFamilies []string `json:"column_families"`
}

// MethodStatus is one Thrift method of GET /v1/status.
type MethodStatus struct {
	Pool
	// Slow counts the calls that took longer than Status.SlowMs.
	Slow int64 `json:"slow"`
}

func (s *Server) status(r *http.Request) (any, error) {
	info, err := s.info(r)
	if err != nil {
		return nil, err
	}
	ring, err := s.ring(r)
	if err != nil {
		return nil, err
	}
	pools, err := s.tpstats(r)
	if err != nil {
		return nil, err
	}
	fams, err := s.families()
	if err != nil {
		return nil, err
	}
	slow := map[string]int64{}
	for _, m := range fams[rpcmetrics.MetricDuration].GetMetric() {
		h := m.GetHistogram()
		fast := uint64(0)
		for _, b := range h.GetBucket() {
			if b.GetUpperBound() <= SlowCallSeconds*1.0001 {
				fast = b.GetCumulativeCount()
			}
		}
		slow[label(m, "method")] = int64(h.GetSampleCount() - fast)
	}
	st := Status{
		Version: version(), GoVersion: runtime.Version(), Store: s.o.Node.Store,
		Info: info.(Info), Ring: ring.([]RingEntry), SlowMs: SlowCallSeconds * 1000,
		Keyspace: []KeyspaceStatus{}, Methods: []MethodStatus{},
	}
	sch := s.schema()
	for _, name := range sch.KeyspaceNames() {
		k := KeyspaceStatus{Name: name, ColumnFamilies: []string{}}
		for cf := range sch.Keyspaces[name].ColumnFamilies {
			k.ColumnFamilies = append(k.ColumnFamilies, cf)
		}
		sort.Strings(k.ColumnFamilies)
		st.Keyspace = append(st.Keyspace, k)
	}
	for _, p := range pools.([]Pool) {
		st.Methods = append(st.Methods, MethodStatus{Pool: p, Slow: slow[p.Name]})
	}
	return st, nil
}

//go:embed status.html
var statusPage []byte

// statusHTML serves the status page. It holds no figures itself (its
// script reads /v1/status, with the bearer token when one is needed), so
// it is served without the token.
func statusHTML(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:")
	w.Write(statusPage)
}
