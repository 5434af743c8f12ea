// Package report prints the admin endpoint's answers for thriftd-tool:
// in nodetool 0.6's shapes (same labels, widths and number formats, so
// scripts that grepped nodetool keep working) or as JSON.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/thriftd/thriftd/admin"
)

// Printer writes answers to W, as JSON when JSON is set.
type Printer struct {
	W    io.Writer
	JSON bool
}

func (p Printer) json(v any) error {
	enc := json.NewEncoder(p.W)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Info prints nodetool info: the token, then `%-17s: %s` lines.
func (p Printer) Info(i admin.Info) error {
	if p.JSON {
		return p.json(i)
	}
	var b strings.Builder
	fmt.Fprintln(&b, i.Token)
	fmt.Fprintf(&b, "%-17s: %s\n", "Load", i.Load)
	fmt.Fprintf(&b, "%-17s: %d\n", "Generation No", i.GenerationNo)
	fmt.Fprintf(&b, "%-17s: %d\n", "Uptime (seconds)", i.UptimeSeconds)
	fmt.Fprintf(&b, "%-17s: %.2f / %.2f\n", "Heap Memory (MB)", i.HeapUsedMB, i.HeapMaxMB)
	_, err := io.WriteString(p.W, b.String())
	return err
}

// Ring prints nodetool ring: columns of 14, 11, 14, 8 and 43 characters.
func (p Printer) Ring(r []admin.RingEntry) error {
	if p.JSON {
		return p.json(r)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-14s%-11s%-14s%-8s%-43s%s\n", "Address", "Status", "Load", "Owns", "Range", "Ring")
	if len(r) > 1 {
		// 0.6 repeated the last token first, so that each line reads as
		// the range (previous token, this token].
		fmt.Fprintf(&b, "%-14s%-11s%-14s%-8s%-43s\n", "", "", "", "", r[len(r)-1].Token)
	}
	for i, e := range r {
		art := "|   |"
		switch {
		case i == 0:
			art = "|<--|"
		case i == len(r)-1:
			art = "|-->|"
		}
		fmt.Fprintf(&b, "%-14s%-11s%-14s%-8s%-43s%s\n", e.Address, e.Status, e.Load, fmt.Sprintf("%.2f%%", e.Owns), e.Token, art)
	}
	_, err := io.WriteString(p.W, b.String())
	return err
}

// TPStats prints nodetool tpstats: one pool per Thrift method in 0.6's
// columns of 25, 10, 10 and 15 characters, then errors and mean latency.
func (p Printer) TPStats(pools []admin.Pool) error {
	if p.JSON {
		return p.json(pools)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-25s%10s%10s%15s%10s%15s\n", "Pool Name", "Active", "Pending", "Completed", "Errors", "Latency (ms)")
	for _, q := range pools {
		fmt.Fprintf(&b, "%-25s%10d%10d%15d%10d%15.3f\n", q.Name, q.Active, q.Pending, q.Completed, q.Errors, q.LatencyMs)
	}
	_, err := io.WriteString(p.W, b.String())
	return err
}

// latency is 0.6's rendering of a mean latency: NaN when nothing was
// counted, else `%01.3f`.
func latency(count int64, ms float64) string {
	if count == 0 {
		return fmt.Sprint(math.NaN())
	}
	return fmt.Sprintf("%01.3f", ms)
}

// CFStats prints nodetool cfstats.
func (p Printer) CFStats(ks []admin.KeyspaceStats) error {
	if p.JSON {
		return p.json(ks)
	}
	var b strings.Builder
	for _, k := range ks {
		fmt.Fprintf(&b, "Keyspace: %s\n", k.Name)
		fmt.Fprintf(&b, "\tRead Count: %d\n", k.ReadCount)
		fmt.Fprintf(&b, "\tRead Latency: %s ms.\n", latency(k.ReadCount, k.ReadLatencyMs))
		fmt.Fprintf(&b, "\tWrite Count: %d\n", k.WriteCount)
		fmt.Fprintf(&b, "\tWrite Latency: %s ms.\n", latency(k.WriteCount, k.WriteLatencyMs))
		fmt.Fprintf(&b, "\tPending Tasks: %d\n", k.PendingTasks)
		for _, f := range k.ColumnFamilies {
			fmt.Fprintf(&b, "\t\tColumn Family: %s\n", f.Name)
			fmt.Fprintf(&b, "\t\tSSTable count: %d\n", f.SSTableCount)
			fmt.Fprintf(&b, "\t\tSpace used (live): %d\n", f.SpaceUsedLive)
			fmt.Fprintf(&b, "\t\tSpace used (total): %d\n", f.SpaceUsedTotal)
			fmt.Fprintf(&b, "\t\tMemtable Columns Count: %d\n", f.MemtableColumns)
			fmt.Fprintf(&b, "\t\tMemtable Data Size: %d\n", f.MemtableDataSize)
			fmt.Fprintf(&b, "\t\tMemtable Switch Count: %d\n", f.MemtableSwitchCount)
			fmt.Fprintf(&b, "\t\tRead Count: %d\n", f.ReadCount)
			fmt.Fprintf(&b, "\t\tRead Latency: %s ms.\n", latency(f.ReadCount, f.ReadLatencyMs))
			fmt.Fprintf(&b, "\t\tWrite Count: %d\n", f.WriteCount)
			fmt.Fprintf(&b, "\t\tWrite Latency: %s ms.\n", latency(f.WriteCount, f.WriteLatencyMs))
			fmt.Fprintf(&b, "\t\tPending Tasks: %d\n", f.PendingTasks)
			fmt.Fprintf(&b, "\t\tKey cache: disabled\n")
			fmt.Fprintf(&b, "\t\tRow cache: disabled\n")
			fmt.Fprintf(&b, "\t\tCompacted row minimum size: 0\n")
			fmt.Fprintf(&b, "\t\tCompacted row maximum size: 0\n")
			fmt.Fprintf(&b, "\t\tCompacted row mean size: 0\n")
			fmt.Fprintln(&b)
		}
		fmt.Fprintln(&b, "----------------")
	}
	_, err := io.WriteString(p.W, b.String())
	return err
}

// Done prints the outcome of flush, compact, snapshot, clearsnapshot and
// drain: one line (nodetool printed nothing; a line says what happened).
func (p Printer) Done(d admin.Done) error {
	if p.JSON {
		return p.json(d)
	}
	took := round(d.Took)
	var line string
	switch d.Command {
	case "snapshot":
		s := d.Snapshot
		line = fmt.Sprintf("Snapshot %s taken in %s: %d files, %s; calls paused %s", s.Name, s.Dir, s.Files, admin.FileSize(s.Bytes), round(s.Paused))
	case "clearsnapshot":
		if len(d.Removed) == 0 {
			line = "No snapshots to remove"
		} else {
			line = "Removed snapshots: " + strings.Join(d.Removed, ", ")
		}
	case "compact":
		scope := "all keyspaces"
		if d.Keyspace != "" {
			scope = "keyspace " + d.Keyspace
			if d.Family != "" {
				scope = "column family " + d.Keyspace + "." + d.Family
			}
		}
		line = fmt.Sprintf("Compacted %s in %s", scope, took)
	case "flush":
		line = fmt.Sprintf("Flushed the memtable in %s", took)
	case "drain":
		line = fmt.Sprintf("Drained in %s: Thrift clients are no longer served and the store is flushed; stop thriftd with SIGTERM", took)
	default:
		line = fmt.Sprintf("%s done in %s", d.Command, took)
	}
	_, err := fmt.Fprintln(p.W, line)
	return err
}

// round keeps a duration readable: milliseconds, or microseconds below one.
func round(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(time.Millisecond)
}

// Migration prints the migration proxy's state.
func (p Printer) Migration(s admin.MigrationStatus) error {
	if p.JSON {
		return p.json(s)
	}
	_, err := fmt.Fprintf(p.W, "Origin: %s\nReads: %s\nWrites: %s\nPending writes: %d (%s)\n", s.Origin, s.Reads, s.Writes, s.Pending, s.LogPath)
	return err
}
