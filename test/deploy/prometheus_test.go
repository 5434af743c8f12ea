//go:build deploy

package deploy

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPrometheusRules loads deploy/prometheus/alerts.yml with promtool
// (check rules), and runs its unit tests (promtool test rules
// deploy/prometheus/alerts_test.yml): each alert fires on the series that
// should raise it, and not on healthy ones.
func TestPrometheusRules(t *testing.T) {
	promtool := need(t, "promtool", "prometheus")
	out := command(t, promtool, "check", "rules", "deploy/prometheus/alerts.yml")
	if !strings.Contains(out, "SUCCESS") {
		t.Errorf("promtool check rules:\n%s", out)
	}
	out = command(t, promtool, "test", "rules", "deploy/prometheus/alerts_test.yml")
	if !strings.Contains(out, "SUCCESS") {
		t.Errorf("promtool test rules:\n%s", out)
	}
}

// TestGrafanaDashboard checks that deploy/grafana/thriftd.json is a
// dashboard Grafana imports: JSON with a title and uid, panels with a
// Prometheus query each (test/ops checks the metrics they name).
func TestGrafanaDashboard(t *testing.T) {
	var dash struct {
		Title, UID string
		Panels     []struct {
			Type    string
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal([]byte(readRepo(t, "deploy/grafana/thriftd.json")), &dash); err != nil {
		t.Fatal(err)
	}
	if dash.Title == "" || dash.UID == "" {
		t.Errorf("dashboard title %q, uid %q: both needed", dash.Title, dash.UID)
	}
	for _, p := range dash.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			if !strings.Contains(tg.Expr, "thriftd_") {
				t.Errorf("panel %q: query %q names no thriftd metric", p.Title, tg.Expr)
			}
		}
	}
}
