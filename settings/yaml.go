package settings

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// assignment is one value of one setting, from one layer.
type assignment struct {
	f      *field
	v      reflect.Value
	origin Origin
}

// readYAML reads a thriftd.yaml. Every key must be a setting or a section,
// given at most once, with a value of its type; a null value (key: with
// nothing after it, or ~) sets nothing. Relative file names resolve against
// the directory of path, which also names the file in errors.
func readYAML(data []byte, path string) ([]assignment, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil // empty, or comments only
		}
		return nil, syntaxError(path, err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, fmt.Errorf("%s:%d: a second YAML document: thriftd.yaml holds one", path, next.Line)
	case !errors.Is(err, io.EOF):
		return nil, syntaxError(path, err)
	}
	root := doc.Content[0]
	if isNull(root) {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d:%d: want settings, one key: value a line, not %s", path, root.Line, root.Column, describe(root))
	}
	r := &yamlReader{path: path, dir: filepath.Dir(path), sections: sections()}
	if err := r.mapping(root, ""); err != nil {
		return nil, err
	}
	return r.out, nil
}

// syntaxError turns yaml.v3's "yaml: line 3: ..." into "FILE:3: ...".
func syntaxError(path string, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, tail, ok := strings.Cut(rest, ": "); ok {
			if _, err := strconv.Atoi(n); err == nil {
				return fmt.Errorf("%s:%s: %s", path, n, tail)
			}
		}
	}
	return fmt.Errorf("%s: %s", path, msg)
}

type yamlReader struct {
	path, dir string
	sections  map[string]bool
	out       []assignment
}

func (r *yamlReader) at(n *yaml.Node) Origin {
	return Origin{Layer: YAMLFile, File: r.path, Line: n.Line, Column: n.Column}
}

func (r *yamlReader) mapping(m *yaml.Node, prefix string) error {
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		if k.Kind != yaml.ScalarNode {
			return fmt.Errorf("%s:%d:%d: want a key name, not %s", r.path, k.Line, k.Column, describe(k))
		}
		key := prefix + k.Value
		if line, dup := seen[k.Value]; dup {
			return fmt.Errorf("%s:%d:%d: %s is set twice (first on line %d)", r.path, k.Line, k.Column, key, line)
		}
		seen[k.Value] = k.Line
		if r.sections[key] {
			if isNull(v) {
				continue
			}
			if v.Kind != yaml.MappingNode {
				return fmt.Errorf("%s:%d:%d: %s: want a section of settings (key: value lines indented below it), not %s", r.path, v.Line, v.Column, key, describe(v))
			}
			if err := r.mapping(v, key+"."); err != nil {
				return err
			}
			continue
		}
		f := fieldByKey(key)
		if f == nil {
			msg := fmt.Sprintf("%s:%d:%d: unknown key %q", r.path, k.Line, k.Column, key)
			if s := suggest(key); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return errors.New(msg)
		}
		if isNull(v) {
			continue
		}
		at := r.at(v)
		val, err := decode(f, v)
		if err != nil {
			return at.errorf(f, "%v", err)
		}
		if f.path && val.String() != "" && !filepath.IsAbs(val.String()) {
			val.SetString(filepath.Join(r.dir, val.String()))
		}
		r.out = append(r.out, assignment{f, val, at})
	}
	return nil
}

func isNull(n *yaml.Node) bool {
	return n.Kind == 0 || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// describe names what a node is, for messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return strconv.Quote(n.Value)
}

// decode reads a YAML value of f's type: scalars and lists of scalars as
// YAML 1.2 writes them, except durations, which are Go's ("30s", "1m30s",
// "0"), and lists, which may also be one comma-separated string.
func decode(f *field, n *yaml.Node) (reflect.Value, error) {
	v := reflect.New(f.typ).Elem()
	wrong := fmt.Errorf("want %s, not %s", f.kind(), describe(n))
	switch {
	case f.typ == stringsType:
		switch n.Kind {
		case yaml.ScalarNode:
			if !isText(n) {
				return v, wrong
			}
			return f.parse(n.Value)
		case yaml.SequenceNode:
			var list []string
			for _, item := range n.Content {
				if item.Kind == yaml.AliasNode {
					item = item.Alias
				}
				if item.Kind != yaml.ScalarNode || !isText(item) {
					return v, fmt.Errorf("want a list of strings, not %s in it (line %d)", describe(item), item.Line)
				}
				list = append(list, item.Value)
			}
			v.Set(reflect.ValueOf(list))
			return v, nil
		}
		return v, wrong
	case n.Kind != yaml.ScalarNode:
		return v, wrong
	case f.typ == durationType:
		if !isText(n) {
			return v, wrong
		}
		return f.parse(n.Value)
	}
	switch f.typ.Kind() {
	case reflect.String:
		if !isText(n) {
			return v, wrong
		}
		v.SetString(n.Value)
	case reflect.Int:
		var i int
		if n.Tag != "!!int" || n.Decode(&i) != nil {
			return v, wrong
		}
		v.SetInt(int64(i))
	case reflect.Bool:
		var b bool
		if n.Tag != "!!bool" || n.Decode(&b) != nil {
			return v, wrong
		}
		v.SetBool(b)
	default:
		panic("settings: " + f.key + " has a type without a YAML decoder: " + f.typ.String())
	}
	return v, nil
}

// isText is true of a scalar that reads as a string: one YAML types as a
// string or a number (a port, a name made of digits), not a boolean, a null
// or a timestamp.
func isText(n *yaml.Node) bool {
	switch n.Tag {
	case "!!str", "!!int", "!!float":
		return true
	}
	return false
}

// suggest returns the key meant by an unknown one: a known key a typo or
// two away or that it begins (token_file for token), or with the same last
// part (max_connections for limits.max_connections), or whose flag it is;
// "" if none.
func suggest(key string) string {
	norm := strings.ReplaceAll(strings.ToLower(key), "-", "_")
	leaf := norm[strings.LastIndexByte(norm, '.')+1:]
	best, bestDist := "", 3
	for _, f := range fields() {
		if f.flag != "" && strings.ReplaceAll(f.flag, "-", "_") == leaf {
			return f.key
		}
		if strings.HasPrefix(f.key, norm+"_") {
			return f.key
		}
		if d := distance(norm, f.key); d < bestDist {
			best, bestDist = f.key, d
		}
	}
	if best != "" {
		return best
	}
	for _, f := range fields() {
		if f.key[strings.LastIndexByte(f.key, '.')+1:] == leaf {
			return f.key
		}
	}
	return ""
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
