package diff19

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// clip shortens a long rendering for a report.
func clip(s string) string {
	if len(s) > 600 {
		return s[:600] + "..."
	}
	return s
}

// firstDiff names the first place where two replies differ, and both
// values there.
func firstDiff(a, b reflect.Value, at string) string {
	if a.IsValid() != b.IsValid() || (a.IsValid() && a.Type() != b.Type()) {
		return fmt.Sprintf("%s: %s / %s", at, clip(showV(a)), clip(showV(b)))
	}
	if !a.IsValid() {
		return ""
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			if a.IsNil() != b.IsNil() {
				return fmt.Sprintf("%s: %s / %s", at, clip(showV(a)), clip(showV(b)))
			}
			return ""
		}
		return firstDiff(a.Elem(), b.Elem(), at)
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if !a.Type().Field(i).IsExported() {
				continue
			}
			if s := firstDiff(a.Field(i), b.Field(i), at+"."+a.Type().Field(i).Name); s != "" {
				return s
			}
		}
		return ""
	case reflect.Slice:
		if a.Type().Elem().Kind() != reflect.Uint8 {
			for i := 0; i < min(a.Len(), b.Len()); i++ {
				if s := firstDiff(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", at, i)); s != "" {
					return s
				}
			}
			if a.Len() != b.Len() {
				return fmt.Sprintf("%s: %d items / %d items", at, a.Len(), b.Len())
			}
			return ""
		}
	case reflect.Map:
		for _, k := range a.MapKeys() {
			if s := firstDiff(a.MapIndex(k), b.MapIndex(k), fmt.Sprintf("%s[%v]", at, k)); s != "" {
				return s
			}
		}
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: %d entries / %d entries", at, a.Len(), b.Len())
		}
		return ""
	}
	if !reflect.DeepEqual(a.Interface(), b.Interface()) {
		return fmt.Sprintf("%s: %s / %s", at, clip(showV(a)), clip(showV(b)))
	}
	return ""
}

func showV(v reflect.Value) string {
	var b strings.Builder
	showValue(&b, v)
	return b.String()
}

// show renders a reply for a report: structs with their set fields, byte
// strings quoted, maps in key order.
func show(v any) string {
	var b strings.Builder
	showValue(&b, reflect.ValueOf(v))
	return b.String()
}

func showValue(b *strings.Builder, v reflect.Value) {
	if !v.IsValid() {
		b.WriteString("nil")
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		showValue(b, v.Elem())
	case reflect.Struct:
		b.WriteString(v.Type().Name() + "{")
		first := true
		for i := 0; i < v.NumField(); i++ {
			f := v.Field(i)
			if !v.Type().Field(i).IsExported() || f.IsZero() {
				continue
			}
			if !first {
				b.WriteString(" ")
			}
			first = false
			b.WriteString(v.Type().Field(i).Name + ":")
			showValue(b, f)
		}
		b.WriteString("}")
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			fmt.Fprintf(b, "%q", v.Bytes())
			return
		}
		b.WriteString("[")
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteString(" ")
			}
			showValue(b, v.Index(i))
		}
		b.WriteString("]")
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		b.WriteString("map[")
		for i, k := range keys {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(b, "%q:", fmt.Sprint(k.Interface()))
			showValue(b, v.MapIndex(k))
		}
		b.WriteString("]")
	case reflect.String:
		fmt.Fprintf(b, "%q", v.String())
	default:
		fmt.Fprint(b, v.Interface())
	}
}

// ---- the two servers --------------------------------------------------------
