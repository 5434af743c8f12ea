package settings

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// YAML writes the effective settings as a thriftd.yaml that Load
// reads back to the same Settings: every key, in the order of
// docs/configuration.md, each with a comment saying where its value came
// from. File names are made absolute, so the output may be saved anywhere.
// Passwords (client_encryption_options.*_password) are the exception: a
// password that is set is printed as no value (~), with a comment saying
// so, for the reader to put back.
func (e *Effective) YAML() ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode, HeadComment: "thriftd's effective configuration, as printed by thriftd -print-config.\n" +
		"Each comment says where the value came from; thriftd -config FILE reads this back."}
	parents := map[string]*yaml.Node{"": root}
	for _, f := range fields() {
		parent := root
		section, name := "", f.key
		if i := strings.LastIndexByte(f.key, '.'); i >= 0 {
			section, name = f.key[:i], f.key[i+1:]
		}
		if p, ok := parents[section]; ok {
			parent = p
		} else {
			parent = &yaml.Node{Kind: yaml.MappingNode}
			root.Content = append(root.Content, scalar("!!str", section), parent)
			parents[section] = parent
		}
		v, err := e.node(f)
		if err != nil {
			return nil, err
		}
		v.LineComment = e.Origin(f.key).String()
		if f.secret && f.value(&e.Settings).String() != "" {
			v = scalar("!!null", "~")
			v.LineComment = e.Origin(f.key).String() + ", not printed"
		}
		parent.Content = append(parent.Content, scalar("!!str", name), v)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// node is the YAML value of f.
func (e *Effective) node(f *field) (*yaml.Node, error) {
	v := f.value(&e.Settings)
	switch {
	case f.typ == stringsType:
		seq := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, s := range v.Interface().([]string) {
			seq.Content = append(seq.Content, scalar("!!str", s))
		}
		return seq, nil
	case f.typ == durationType:
		return scalar("!!str", f.format(v)), nil
	case f.path && v.String() != "":
		abs, err := filepath.Abs(v.String())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.key, err)
		}
		return scalar("!!str", abs), nil
	}
	switch f.typ.Kind() {
	case reflect.Int:
		return scalar("!!int", strconv.FormatInt(v.Int(), 10)), nil
	case reflect.Bool:
		return scalar("!!bool", strconv.FormatBool(v.Bool())), nil
	}
	return scalar("!!str", v.String()), nil
}

func scalar(tag, value string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}
}
