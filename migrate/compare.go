package migrate

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// same reports whether the target answered a read as the origin did, and
// if not, says how. Answers are compared as values: an empty list equals
// a missing one, and a column's TTL is compared by its presence only, since
// a copied column carries the TTL that remained when it was copied
// (docs/migration.md). Exceptions compare by type: the servers word them
// differently.
func same(ov any, oerr error, tv any, terr error) (bool, string) {
	switch {
	case oerr != nil && terr != nil:
		if reflect.TypeOf(oerr) == reflect.TypeOf(terr) {
			return true, ""
		}
		return false, fmt.Sprintf("origin: %v; target: %v", describe(oerr), describe(terr))
	case oerr != nil:
		return false, fmt.Sprintf("origin: %v; target answered %s", describe(oerr), brief(tv))
	case terr != nil:
		return false, fmt.Sprintf("origin answered %s; target: %v", brief(ov), describe(terr))
	}
	a, b := tree(ov), tree(tv)
	if equal(a, b) {
		return true, ""
	}
	return false, fmt.Sprintf("origin answered %s; target answered %s", brief(ov), brief(tv))
}

// tree is v as JSON values, TTLs reduced to their presence.
func tree(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	var t any
	if err := json.Unmarshal(b, &t); err != nil {
		return string(b)
	}
	return ttlPresence(t)
}

func ttlPresence(t any) any {
	switch x := t.(type) {
	case map[string]any:
		for k, v := range x {
			if k == "ttl" && v != nil {
				x[k] = true
				continue
			}
			x[k] = ttlPresence(v)
		}
	case []any:
		for i := range x {
			x[i] = ttlPresence(x[i])
		}
	}
	return t
}

// equal is reflect.DeepEqual on JSON values but for nil, an empty list
// and an empty object, which are equal.
func equal(a, b any) bool {
	if empty(a) && empty(b) {
		return true
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range x {
			if !equal(v, y[k]) {
				return false
			}
		}
		for k, v := range y {
			if _, ok := x[k]; !ok && !empty(v) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// brief is an answer for a log line, cut at 300 bytes.
func brief(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 300 {
		return string(b[:300]) + fmt.Sprintf("... (%d bytes)", len(b))
	}
	return string(b)
}
