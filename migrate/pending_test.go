package migrate

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
)

// A failed target write survives a restart; replay removes what the
// target took, keeps what it refused, and stops at a refused truncate so
// that it cannot wipe later writes; a torn last record is dropped.
func TestPendingReplayKeepsWhatFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pending.log")
	log := slog.New(slog.DiscardHandler)
	p, err := OpenPending(path, log)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range []string{"insert", "remove", "truncate", "insert"} {
		if err := p.Append(Entry{Method: m, Keyspace: "ks", Args: []byte(fmt.Sprint(i))}); err != nil {
			t.Fatal(err)
		}
	}
	p.Close()
	// A crash in the middle of an append.
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.Write([]byte{0, 0, 0, 50, 1, 2})
	f.Close()
	if p, err = OpenPending(path, log); err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Len() != 4 {
		t.Fatalf("after reopen: %d entries, want 4", p.Len())
	}
	var seen []string
	n, err := p.Replay(func(e Entry) error {
		seen = append(seen, string(e.Args))
		if string(e.Args) == "1" || e.Method == "truncate" {
			return errors.New("refused")
		}
		return nil
	})
	if n != 1 || err == nil {
		t.Fatalf("replay: %d applied, err %v; want 1 and an error", n, err)
	}
	if fmt.Sprint(seen) != "[0 1 2]" {
		t.Fatalf("tried %v; want 0 1 2 (stopping at the truncate)", seen)
	}
	if err := p.Append(Entry{Method: "insert", Keyspace: "ks", Args: []byte("4")}); err != nil {
		t.Fatal(err)
	}
	seen = nil
	n, err = p.Replay(func(e Entry) error { seen = append(seen, string(e.Args)); return nil })
	if n != 4 || err != nil || fmt.Sprint(seen) != "[1 2 3 4]" || p.Len() != 0 {
		t.Fatalf("second replay: %d applied, err %v, tried %v, %d left; want 4, nil, [1 2 3 4], 0", n, err, seen, p.Len())
	}
}

func TestSameComparesValues(t *testing.T) {
	ttl := int32(5)
	other := int32(3)
	type col struct {
		Name []byte `json:"name"`
		TTL  *int32 `json:"ttl"`
	}
	cases := []struct {
		a, b any
		want bool
	}{
		{[]col(nil), []col{}, true},
		{[]col{{Name: []byte("a"), TTL: &ttl}}, []col{{Name: []byte("a"), TTL: &other}}, true},
		{[]col{{Name: []byte("a"), TTL: &ttl}}, []col{{Name: []byte("a")}}, false},
		{[]col{{Name: []byte("a")}}, []col{{Name: []byte("b")}}, false},
		{map[string]int32{"k": 1}, map[string]int32{"k": 2}, false},
	}
	for i, c := range cases {
		if got, what := same(c.a, nil, c.b, nil); got != c.want {
			t.Errorf("case %d: same = %v (%s), want %v", i, got, what, c.want)
		}
	}
}
