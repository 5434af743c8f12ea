package layers

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// maxLines is the most lines a hand-written Go file may have: a file
// longer than that holds more than one shape, and is split by shape.
const maxLines = 700

// generated reports the folders whose files are generated, never edited.
func generated(path string) bool {
	return strings.HasPrefix(path, "gen-go/") || strings.HasPrefix(path, "clients/")
}

// overLong returns the files of paths, read from root, longer than max
// lines.
func overLong(root string, paths []string, max int) ([]string, error) {
	var long []string
	for _, p := range paths {
		if !strings.HasSuffix(p, ".go") || generated(p) {
			continue
		}
		b, err := os.ReadFile(root + "/" + p)
		if err != nil {
			return nil, err
		}
		if n := bytes.Count(b, []byte("\n")); n > max {
			long = append(long, p)
		}
	}
	return long, nil
}

func TestNoFileOverMaxLines(t *testing.T) {
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("git rev-parse: %v", err)
	}
	root := strings.TrimSpace(string(top))
	out, err := exec.Command("git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard", "*.go").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	paths := strings.Fields(string(out))
	if len(paths) < 100 {
		t.Fatalf("git ls-files found %d Go files; want the whole tree", len(paths))
	}
	long, err := overLong(root, paths, maxLines)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range long {
		t.Errorf("%s is over %d lines: split it by shape (one shape per file)", p, maxLines)
	}
}

// The check finds a long file, and passes over generated ones.
func TestOverLongFinds(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"a.go", "b.go"} {
		if err := os.WriteFile(dir+"/"+p, []byte(strings.Repeat("x\n", 3)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(dir+"/gen-go", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/gen-go/c.go", []byte(strings.Repeat("x\n", 9)), 0o644); err != nil {
		t.Fatal(err)
	}
	long, err := overLong(dir, []string{"a.go", "b.go", "gen-go/c.go"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(long) != 2 || long[0] != "a.go" || long[1] != "b.go" {
		t.Errorf("overLong = %v, want [a.go b.go]", long)
	}
}
