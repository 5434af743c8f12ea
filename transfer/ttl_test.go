package transfer

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/sstablejson"
)

// The TTL a copy writes: what remains after the time the timestamp
// implies when that leaves some, else the whole TTL, since a column the
// source still serves has not expired.
func TestRemainingTTL(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) int64 { return now.Add(-d).UnixMicro() }
	for _, c := range []struct {
		what string
		ttl  int32
		ts   int64
		want int32
	}{
		{"written 100 s ago", 3600, ago(100 * time.Second), 3500},
		{"written 10.2 s ago: the seconds since are rounded up", 60, ago(10200 * time.Millisecond), 49},
		{"written now", 60, now.UnixMicro(), 60},
		{"one second left", 60, ago(59 * time.Second), 1},
		{"a millisecond timestamp 10 s ago", 60, now.Add(-10 * time.Second).UnixMilli(), 50},
		{"a nanosecond timestamp 10 s ago", 60, now.Add(-10 * time.Second).UnixNano(), 50},
		// The derived TTL has run out, yet the source served the column:
		// its timestamp is not the time of its write.
		{"run out to the second", 60, ago(60 * time.Second), 60},
		{"run out by a fraction of a second", 60, ago(59500 * time.Millisecond), 60},
		{"a 2017 timestamp with a TTL of hours", 7200, time.Date(2017, 3, 1, 8, 0, 0, 0, time.UTC).UnixMicro(), 7200},
		{"a 2017 millisecond timestamp", 7200, time.Date(2017, 3, 1, 8, 0, 0, 0, time.UTC).UnixMilli(), 7200},
		{"a TTL of years, written two years ago", 5 * 365 * 86400, ago(2 * 365 * 24 * time.Hour), 3 * 365 * 86400},
		{"an hour ahead", 600, now.Add(time.Hour).UnixMicro(), 600},
		{"a week ahead: no time", 600, now.Add(7 * 24 * time.Hour).UnixMicro(), 600},
		{"a logical clock", 600, 12345, 600},
		{"zero", 600, 0, 600},
		{"negative", 600, -5, 600},
		{"before 2000", 600, time.Date(1999, 12, 31, 0, 0, 0, 0, time.UTC).UnixMicro(), 600},
	} {
		if got := remainingTTL(c.ttl, c.ts, now); got != c.want {
			t.Errorf("%s: TTL %d, timestamp %d: remainingTTL %d, want %d", c.what, c.ttl, c.ts, got, c.want)
		}
	}
}

// copy writes a column whose timestamp-derived TTL has run out with its
// whole TTL, and a recent one with what remains; a column without TTL is
// written as read.
func TestCopySinkKeepsLiveExpiringColumns(t *testing.T) {
	now := time.Now().Truncate(time.Second)
	s := &copySink19{}
	old := time.Date(2017, 6, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	recent := now.Add(-30 * time.Second).UnixMicro()
	ttl := int32(3 * 3600)
	for _, c := range []struct {
		ts   int64
		ttl  *int32
		want int32
	}{
		{old, &ttl, ttl},
		{recent, &ttl, ttl - 30},
		{old, nil, 0},
	} {
		in := &cassandra19.Column{Name: []byte("n"), Value: []byte("v"), Timestamp: &c.ts, TTL: c.ttl}
		out := s.column(in, now)
		if out.GetTTL() != c.want || out.GetTimestamp() != c.ts {
			t.Errorf("timestamp %d TTL %d: written with timestamp %d TTL %d, want TTL %d", c.ts, in.GetTTL(), out.GetTimestamp(), out.GetTTL(), c.want)
		}
	}
	if in := (&cassandra19.Column{TTL: &ttl}); s.column(in, now) == in || in.GetTTL() != ttl {
		t.Errorf("the column read was changed in place")
	}
}

// An export in 1.x's format gives a column whose timestamp-derived TTL
// has run out a local expiration time of the export's time plus its whole
// TTL, so that an import of the file keeps it.
func TestExport12KeepsLiveExpiringColumns(t *testing.T) {
	now := time.Unix(1795580000, 0)
	var buf bytes.Buffer
	x := sstablejson.NewWriter12(&buf, false)
	bytesType := "BytesType"
	s := &exportSink12{x: x, def: &cassandra19.CfDef{ComparatorType: "BytesType", DefaultValidationClass: &bytesType}, o: &Options{Stats: &Stats{}}, now: now}
	old := time.Date(2017, 6, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	recent := now.Add(-100 * time.Second).UnixMicro()
	ttl := int32(7200)
	s.beginRow([]byte("k"))
	for _, ts := range []int64{old, recent} {
		if err := s.column(&cassandra19.Column{Name: []byte("n"), Value: []byte("v"), Timestamp: &ts, TTL: &ttl}, "BytesType", false); err != nil {
			t.Fatal(err)
		}
	}
	s.endRow()
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		fmt.Sprintf(`[%q,%q,%d,"e",%d,%d]`, "6e", "76", old, ttl, now.Unix()+int64(ttl)),
		fmt.Sprintf(`[%q,%q,%d,"e",%d,%d]`, "6e", "76", recent, ttl, now.Unix()+int64(ttl)-100),
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the export lacks %s:\n%s", want, buf.String())
		}
	}
}
