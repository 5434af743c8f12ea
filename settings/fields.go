package settings

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
)

// field is one setting, as its tags declare it.
type field struct {
	key  string // dotted path in thriftd.yaml: "limits.max_connections"
	flag string // without the dash; "" when there is none
	def  string // the default, in flag syntax
	help string // with {WORD} marking the flag's argument
	path bool   // a file name, resolved against thriftd.yaml's directory
	// secret is a password: -print-config leaves its value out.
	secret bool
	index  []int // of the field within Settings, for FieldByIndex
	typ    reflect.Type
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	stringsType  = reflect.TypeFor[[]string]()
)

// fields lists every setting in declaration order. The list is built once
// from Settings' tags and never changed.
var fields = sync.OnceValue(func() []*field {
	var out []*field
	var walk func(t reflect.Type, prefix string, index []int)
	walk = func(t reflect.Type, prefix string, index []int) {
		for i := range t.NumField() {
			sf := t.Field(i)
			key := prefix + sf.Tag.Get("yaml")
			idx := append(append([]int(nil), index...), i)
			if sf.Type.Kind() == reflect.Struct {
				walk(sf.Type, key+".", idx)
				continue
			}
			_, path := sf.Tag.Lookup("path")
			_, secret := sf.Tag.Lookup("secret")
			out = append(out, &field{
				key: key, flag: sf.Tag.Get("flag"), def: sf.Tag.Get("default"),
				help: sf.Tag.Get("help"), path: path, secret: secret, index: idx, typ: sf.Type,
			})
		}
	}
	walk(reflect.TypeFor[Settings](), "", nil)
	return out
})

// sections are the keys of thriftd.yaml that hold other keys.
func sections() map[string]bool {
	out := map[string]bool{}
	for _, f := range fields() {
		if i := strings.LastIndexByte(f.key, '.'); i >= 0 {
			out[f.key[:i]] = true
		}
	}
	return out
}

func fieldByKey(key string) *field {
	for _, f := range fields() {
		if f.key == key {
			return f
		}
	}
	return nil
}

// value is the field within s, settable.
func (f *field) value(s *Settings) reflect.Value {
	return reflect.ValueOf(s).Elem().FieldByIndex(f.index)
}

// usage is the help text as the flag package wants it: the argument's name
// in backquotes.
func (f *field) usage() string {
	return strings.NewReplacer("{", "`", "}", "`").Replace(f.help)
}

// plainHelp is the help text for a reader: the argument's name as it is.
func (f *field) plainHelp() string {
	return strings.NewReplacer("{", "", "}", "").Replace(f.help)
}

// kind names the type of the field's values for messages and docs.
func (f *field) kind() string {
	switch f.typ {
	case durationType:
		return "a duration such as 30s or 10m"
	case stringsType:
		return "a list of strings"
	}
	switch f.typ.Kind() {
	case reflect.Int:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	}
	return "a string"
}

// parse reads text written as on the command line: an integer, a boolean,
// a Go duration, a string, or a comma-separated list.
func (f *field) parse(text string) (reflect.Value, error) {
	v := reflect.New(f.typ).Elem()
	switch f.typ {
	case durationType:
		if text == "" {
			return v, nil
		}
		d, err := time.ParseDuration(text)
		if err != nil {
			return v, fmt.Errorf("want %s, not %q", f.kind(), text)
		}
		v.SetInt(int64(d))
		return v, nil
	case stringsType:
		var list []string
		for _, s := range strings.Split(text, ",") {
			if s = strings.TrimSpace(s); s != "" {
				list = append(list, s)
			}
		}
		v.Set(reflect.ValueOf(list))
		return v, nil
	}
	switch f.typ.Kind() {
	case reflect.String:
		v.SetString(text)
	case reflect.Int:
		if text == "" {
			return v, nil
		}
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return v, fmt.Errorf("want %s, not %q", f.kind(), text)
		}
		v.SetInt(n)
	case reflect.Bool:
		if text == "" {
			return v, nil
		}
		b, err := strconv.ParseBool(text)
		if err != nil {
			return v, fmt.Errorf("want %s, not %q", f.kind(), text)
		}
		v.SetBool(b)
	default:
		panic("settings: " + f.key + " has a type without a parser: " + f.typ.String())
	}
	return v, nil
}

// format writes v as parse reads it.
func (f *field) format(v reflect.Value) string {
	switch f.typ {
	case durationType:
		return time.Duration(v.Int()).String()
	case stringsType:
		return strings.Join(v.Interface().([]string), ",")
	}
	return fmt.Sprint(v.Interface())
}
