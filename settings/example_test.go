package settings

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/thriftd/thriftd/internal/testenv"
)

// commentedSetting is a line of the example thriftd.yaml that sets a key
// once its "# " is removed: "  # max_connections: 4096".
var commentedSetting = regexp.MustCompile(`(?m)^( *)# ([a-z_]+: [^ ]+)$`)

// TestExampleServesTheDefaults loads the repository's thriftd.yaml: it is
// the repository's storage-conf.xml with every default, the same settings
// as serving storage-conf.xml alone. Then it uncomments every commented
// key: the file names every setting, and the values shown are the
// defaults.
func TestExampleServesTheDefaults(t *testing.T) {
	root := testenv.RepoRoot()
	t.Chdir(root) // storage-conf.xml's relative directories resolve here
	example, err := Load("thriftd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := Load("storage-conf.xml")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := absolute(t, example.Settings), absolute(t, plain.Settings); !reflect.DeepEqual(got, want) {
		t.Errorf("thriftd.yaml:\n%+v\nstorage-conf.xml alone:\n%+v", got, want)
	}
	for _, f := range fields() {
		if o := example.Origin(f.key); o.Layer == YAMLFile && f.key != "storage_conf" {
			t.Errorf("thriftd.yaml sets %s (%s): every key but storage_conf is commented out at its default", f.key, o)
		}
	}

	text, err := os.ReadFile("thriftd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	uncommented := commentedSetting.ReplaceAllString(string(text), "$1$2")
	path := write(t, t.TempDir(), "thriftd.yaml", strings.ReplaceAll(uncommented, "storage_conf: storage-conf.xml", "storage_conf: "+filepath.Join(root, "storage-conf.xml")))
	all, err := Load(path)
	if err != nil {
		t.Fatalf("the example with every key uncommented: %v", err)
	}
	var missing []string
	for _, f := range fields() {
		if all.Origin(f.key).Layer != YAMLFile {
			missing = append(missing, f.key)
		}
	}
	if len(missing) > 0 {
		t.Errorf("thriftd.yaml does not name %v", missing)
	}
	// Uncommented, the example's relative file names resolve against the
	// temporary directory: compare them by name.
	got, want := absolute(t, all.Settings), absolute(t, plain.Settings)
	for _, f := range fields() {
		g, w := f.value(&got), f.value(&want)
		if f.path {
			g, w = reflect.ValueOf(filepath.Base(g.String())), reflect.ValueOf(filepath.Base(w.String()))
		}
		if !reflect.DeepEqual(g.Interface(), w.Interface()) {
			t.Errorf("thriftd.yaml shows %s: %v, but its default is %v", f.key, g, w)
		}
	}
}

// TestDocsNameEveryKeyAndFlag reads docs/configuration.md: its thriftd.yaml
// section names every key and flag.
func TestDocsNameEveryKeyAndFlag(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(text)
	if i := strings.Index(doc, "## thriftd.yaml"); i < 0 {
		t.Fatal(`docs/configuration.md has no "## thriftd.yaml" section`)
	} else {
		doc = doc[i:]
	}
	for _, f := range fields() {
		if !strings.Contains(doc, "`"+f.key+"`") {
			t.Errorf("docs/configuration.md does not describe `%s`", f.key)
		}
		if f.flag != "" && !regexp.MustCompile("`-"+regexp.QuoteMeta(f.flag)+"[ `]").MatchString(doc) {
			t.Errorf("docs/configuration.md does not name the flag `-%s` of %s", f.flag, f.key)
		}
	}
}

// TestFieldTags checks what every setting must declare: a unique key and
// flag, help, an argument name for a flag that takes one, and a default
// its own parser reads.
func TestFieldTags(t *testing.T) {
	keys, flagNames := map[string]bool{}, map[string]bool{}
	for _, f := range fields() {
		if f.key == "" || strings.HasSuffix(f.key, ".") || keys[f.key] {
			t.Errorf("key %q is empty or repeated", f.key)
		}
		keys[f.key] = true
		if f.flag != "" {
			if flagNames[f.flag] || slices.Contains([]string{"config", "print-config", "repair", "cassandra-drop"}, f.flag) {
				t.Errorf("flag -%s is repeated", f.flag)
			}
			flagNames[f.flag] = true
			if f.typ.Kind() != reflect.Bool && !regexp.MustCompile(`\{[A-Z][A-Z:.,\[\]]*\}`).MatchString(f.help) {
				t.Errorf("the help of -%s names no {ARGUMENT}: %q", f.flag, f.help)
			}
		}
		if f.help == "" {
			t.Errorf("%s has no help", f.key)
		}
		v, err := f.parse(f.def)
		if err != nil {
			t.Errorf("%s: default %q: %v", f.key, f.def, err)
		} else if f.def != "" && f.format(v) != f.def {
			t.Errorf("%s: default %q formats back as %q", f.key, f.def, f.format(v))
		}
	}
}

func TestParseText(t *testing.T) {
	boolField := &field{key: "b", typ: reflect.TypeFor[bool]()}
	for _, tc := range []struct {
		f    *field
		text string
		want any
	}{
		{boolField, "true", true},
		{boolField, "", false},
		{fieldByKey("limits.max_connections"), "-7", -7},
		{fieldByKey("limits.idle_timeout"), "1h2m", "1h2m0s"},
		{fieldByKey("cassandra.hosts"), " a:1 ,, b:2 ", "a:1,b:2"},
		{fieldByKey("cassandra.hosts"), "", ""},
	} {
		v, err := tc.f.parse(tc.text)
		if err != nil {
			t.Errorf("%s %q: %v", tc.f.key, tc.text, err)
			continue
		}
		got := any(tc.f.format(v))
		if _, ok := tc.want.(string); !ok {
			got = v.Interface()
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %q = %v, want %v", tc.f.key, tc.text, got, tc.want)
		}
	}
	if _, err := boolField.parse("yes"); err == nil {
		t.Error(`a boolean read "yes"`)
	}
}

func TestIsXML(t *testing.T) {
	for _, tc := range []struct {
		data, path string
		want       bool
	}{
		{"<Storage/>", "any.conf", true},
		{"\xef\xbb\xbf\n  <?xml version='1.0'?><Storage/>", "thriftd.yaml", true},
		{"<!-- comment --><Storage/>", "x", true},
		{"listen: :1", "storage-conf.xml", false},
		{"# comment\n", "x.yaml", false},
		{"", "x.yaml", false},
		{"", "x.XML", true},
		{" \n", "conf", false},
	} {
		if got := IsXML([]byte(tc.data), tc.path); got != tc.want {
			t.Errorf("IsXML(%q, %q) = %v", tc.data, tc.path, got)
		}
	}
}
