package layers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/thriftd/thriftd"

// goList returns each package of the module and the module's packages it
// imports (not counting its tests), by path inside the module.
func goList(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", module+"/...")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	graph := map[string][]string{}
	dec := json.NewDecoder(&out)
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkg := strings.TrimPrefix(p.ImportPath, module+"/")
		graph[pkg] = nil
		for _, imp := range p.Imports {
			if rest, ok := strings.CutPrefix(imp, module+"/"); ok {
				graph[pkg] = append(graph[pkg], rest)
			}
		}
	}
	return graph
}

// layerOf is the index in order of the layer a package belongs to, by the
// longest path that holds it; -1 when none does.
func layerOf(order []Layer, pkg string) int {
	best, bestLen := -1, -1
	for i, l := range order {
		for _, p := range l.Packages {
			if (pkg == p || strings.HasPrefix(pkg, p+"/")) && len(p) > bestLen {
				best, bestLen = i, len(p)
			}
		}
	}
	return best
}

func folderOf(pkg string) string {
	f, _, _ := strings.Cut(pkg, "/")
	return f
}

// check returns every arrow of graph that runs against order: a package
// of no layer, an import of a higher layer, an import between siblings,
// and an import between folders where the imported folder holds a package
// above the importing folder's lowest layer.
func check(order []Layer, siblings [][]string, graph map[string][]string) []string {
	var bad []string
	layer := map[string]int{}
	for pkg := range graph {
		layer[pkg] = layerOf(order, pkg)
		if layer[pkg] < 0 {
			bad = append(bad, fmt.Sprintf("%s belongs to no layer (declare it in internal/layers)", pkg))
		}
	}
	lowest, highest := map[string]int{}, map[string]int{}
	for pkg, l := range layer {
		f := folderOf(pkg)
		if v, ok := lowest[f]; !ok || l < v {
			lowest[f] = l
		}
		if v, ok := highest[f]; !ok || l > v {
			highest[f] = l
		}
	}
	sibling := func(a, b string) bool {
		for _, s := range siblings {
			if slices.Contains(s, a) && slices.Contains(s, b) {
				return true
			}
		}
		return false
	}
	for pkg, imports := range graph {
		for _, imp := range imports {
			li, lp := layer[imp], layer[pkg]
			if li < 0 || lp < 0 {
				continue
			}
			switch {
			case li > lp:
				bad = append(bad, fmt.Sprintf("%s (%s) imports %s (%s), a higher layer", pkg, order[lp].Name, imp, order[li].Name))
			case sibling(pkg, imp):
				bad = append(bad, fmt.Sprintf("%s imports its sibling %s", pkg, imp))
			}
			from, to := folderOf(pkg), folderOf(imp)
			if from != to && highest[to] > lowest[from] {
				bad = append(bad, fmt.Sprintf("folder %s/ (from layer %s) imports folder %s/ (%s), which holds a package of layer %s",
					from, order[lowest[from]].Name, to, imp, order[highest[to]].Name))
			}
		}
	}
	slices.Sort(bad)
	return slices.Compact(bad)
}

// TestLayers: thriftd's import graph has no arrow from a lower layer to a
// higher one, at the package level and at the folder level.
func TestLayers(t *testing.T) {
	graph := goList(t)
	if _, ok := graph["engine"]; !ok {
		t.Fatalf("go list found no engine package among %d", len(graph))
	}
	for _, b := range check(Order, Siblings, graph) {
		t.Error(b)
	}
}

// TestCheckFinds: the check reports each kind of wrong arrow, so that
// TestLayers can fail.
func TestCheckFinds(t *testing.T) {
	order := []Layer{{"types", []string{"marshal"}}, {"schema", []string{"schema"}}, {"engine", []string{"engine"}}, {"services", []string{"handler", "handler19"}}}
	siblings := [][]string{{"handler", "handler19"}}
	for _, c := range []struct {
		graph map[string][]string
		want  string
	}{
		{map[string][]string{"marshal": {"schema"}, "schema": nil}, "marshal (types) imports schema (schema), a higher layer"},
		{map[string][]string{"handler": {"handler19"}, "handler19": nil}, "handler imports its sibling handler19"},
		{map[string][]string{"engine": {"schema"}, "schema": nil, "bench": nil}, "bench belongs to no layer"},
		{map[string][]string{"engine": {"schema"}, "schema": nil, "schema/catalog": {"engine"}}, "schema/catalog (schema) imports engine (engine), a higher layer"},
		{map[string][]string{"engine": {"schema"}, "schema": nil, "schema/x": nil}, ""},
	} {
		got := check(order, siblings, c.graph)
		if c.want == "" {
			if len(got) != 0 {
				t.Errorf("check(%v) = %q, want nothing", c.graph, got)
			}
			continue
		}
		if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, c.want) }) {
			t.Errorf("check(%v) = %q, want %q", c.graph, got, c.want)
		}
	}
	// The folder rule: schema/ holding a package above engine, which
	// engine imports from.
	order = append(order[:3:3], Layer{"catalog", []string{"schema/catalog"}})
	got := check(order, nil, map[string][]string{"engine": {"schema"}, "schema": nil, "schema/catalog": {"engine"}})
	if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "folder engine/") }) {
		t.Errorf("a folder that imports from a folder holding a higher layer: check = %q", got)
	}
}
