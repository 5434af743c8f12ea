package settings

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/internal/testenv"
)

// FuzzReadYAML feeds arbitrary bytes to the thriftd.yaml reader: it never
// panics, every error names the file, and what it accepts are values of
// their settings' types, at a line of the file, that Validate can judge.
func FuzzReadYAML(f *testing.F) {
	if text, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "thriftd.yaml")); err == nil {
		f.Add(text)
		f.Add([]byte(commentedSetting.ReplaceAllString(string(text), "$1$2")))
	}
	for _, s := range []string{
		"listen: :1\nlimits: {max_connections: 0, idle_timeout: 1m}\n",
		"cassandra:\n  hosts: [a:1, 'b:2']\n  username: u\n",
		"a: &x 1\nlisten: *x\n", "limits: &l {max_connections: 1}\nauth: *l\n",
		"<<: {listen: :1}", "- 1", "listen: [", "? [a]\n: 1", "---\n---\n", "\xef\xbb\xbflisten: :1",
	} {
		f.Add([]byte(s))
	}
	const path = "/etc/thriftd/thriftd.yaml"
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := readYAML(data, path)
		if err != nil {
			if !strings.HasPrefix(err.Error(), path) {
				t.Errorf("the error does not name the file: %v", err)
			}
			return
		}
		e := &Effective{Settings: Defaults(), origins: map[string]Origin{}}
		for _, a := range set {
			if a.v.Type() != a.f.typ || a.origin.Line < 1 {
				t.Fatalf("%s: a %s at %+v", a.f.key, a.v.Type(), a.origin)
			}
			a.f.value(&e.Settings).Set(a.v)
			e.origins[a.f.key] = a.origin
		}
		e.Validate()
	})
}
