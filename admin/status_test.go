package admin

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/thriftd/thriftd/rpcmetrics"
)

// TestStatus reads /v1/status over a real store with calls counted in the
// Thrift call metrics: a fast and a slow call, an error; and the page that
// shows it is served without the token, which /v1/status needs.
func TestStatus(t *testing.T) {
	srv, c := serve(t, "tok", nil)
	dur := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: rpcmetrics.MetricDuration,
		Buckets: prometheus.ExponentialBuckets(50e-6, 2, 18)}, []string{"method"})
	calls := prometheus.NewCounterVec(prometheus.CounterOpts{Name: rpcmetrics.MetricCalls}, []string{"method"})
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: rpcmetrics.MetricErrors}, []string{"method", "exception"})
	srv.o.Registry.MustRegister(dur, calls, errs)
	for _, d := range []float64{0.001, 0.1, 0.2, 3} {
		dur.WithLabelValues("get").Observe(d)
		calls.WithLabelValues("get").Inc()
	}
	errs.WithLabelValues("get", "NotFoundException").Inc()

	get := func(path, token string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, "http://"+c.Addr+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}
	for _, path := range []string{"/", "/status"} {
		code, ctype, body := get(path, "")
		if code != 200 || !strings.HasPrefix(ctype, "text/html") || !strings.Contains(body, "v1/status") {
			t.Errorf("GET %s: %d %s\n%.200s", path, code, ctype, body)
		}
	}
	if code, _, _ := get("/nope", ""); code != 404 {
		t.Errorf("GET /nope: %d, want 404", code)
	}
	if code, _, _ := get("/v1/status", ""); code != 401 {
		t.Errorf("GET /v1/status without the token: %d, want 401", code)
	}
	code, _, body := get("/v1/status", "tok")
	if code != 200 {
		t.Fatalf("GET /v1/status: %d %s", code, body)
	}
	var st Status
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if st.Version == "" || !strings.HasPrefix(st.GoVersion, "go") || st.Info.Token != "42" || len(st.Ring) != 1 {
		t.Errorf("status: %+v", st)
	}
	if len(st.Keyspace) != 1 || st.Keyspace[0].Name != "K" {
		t.Errorf("keyspaces: %+v", st.Keyspace)
	}
	var got *MethodStatus
	for i := range st.Methods {
		if st.Methods[i].Name == "get" {
			got = &st.Methods[i]
		}
	}
	// 0.1 s is within the bucket of 102.4 ms; 0.2 s and 3 s are slow.
	if got == nil || got.Completed != 4 || got.Errors != 1 || got.Slow != 2 {
		t.Errorf("get: %+v, want 4 completed, 1 error, 2 slow", got)
	}
	if st.SlowMs != 102.4 {
		t.Errorf("slow_ms %v", st.SlowMs)
	}
}
