package main

import (
	"fmt"
	"strings"
	"time"
)

func printCompare(table []compareRow, targets []target) {
	var cols []target
	for _, c := range compareColumns {
		for _, t := range targets {
			if t.col == c || strings.HasPrefix(t.col, c+":") {
				cols = append(cols, t)
			}
		}
	}
	has := func(col string) bool {
		for _, t := range cols {
			if t.col == col {
				return true
			}
		}
		return false
	}
	head := "| shape | conns |"
	line := "|---|---:|"
	for _, c := range cols {
		head += " " + c.title + " ops/s (p99 ms) |"
		line += "---:|"
	}
	type ratio struct{ title, num, den string }
	var ratios []ratio
	for _, r := range []ratio{{"19.x / 0.6", col19, col06}, {"19.x / no-op", col19, colNoop}} {
		if has(r.num) && has(r.den) {
			ratios = append(ratios, r)
			head += " " + r.title + " |"
			line += "---:|"
		}
	}
	// Server CPU time per call of every column whose process is known:
	// steadier than throughput on a shared machine.
	var cpuCols []string
	var cpuTitles []string
	for _, c := range cols {
		if len(table) > 0 && len(table[0].cpu[c.col]) > 0 {
			cpuCols = append(cpuCols, c.col)
			title := strings.TrimPrefix(strings.TrimPrefix(c.title, "thriftd "), "real ")
			if c.col == colCQL {
				title += " (thriftd+C*)"
			}
			cpuTitles = append(cpuTitles, title)
		}
	}
	if len(cpuCols) > 0 {
		head += " server CPU µs/call " + strings.Join(cpuTitles, " / ") + " |"
		line += "---:|"
	}
	fmt.Println(head)
	fmt.Println(line)
	for _, r := range table {
		fmt.Printf("| %s | %d |", r.shape, r.conns)
		for _, c := range cols {
			if _, ok := r.ops[c.col]; !ok {
				fmt.Printf(" — |")
				continue
			}
			fmt.Printf(" %.0f (%.2f) |", r.ops[c.col], r.p99[c.col])
		}
		for _, q := range ratios {
			if r.ops[q.den] == 0 {
				fmt.Printf(" — |")
				continue
			}
			fmt.Printf(" %.0f%% |", 100*r.ops[q.num]/r.ops[q.den])
		}
		if len(cpuCols) > 0 {
			var v []string
			for _, c := range cpuCols {
				var parts []string
				for _, d := range r.cpu[c] {
					parts = append(parts, fmt.Sprintf("%.0f", micros(d)))
				}
				if len(parts) == 0 {
					parts = []string{"—"}
				}
				v = append(v, strings.Join(parts, "+"))
			}
			fmt.Printf(" %s |", strings.Join(v, " / "))
		}
		fmt.Println()
	}
}

// printRatios prints, for every real server, the throughput of thriftd's
// columns as a fraction of the real server's and the real server's CPU
// time per call over theirs (all of their processes').
func printRatios(table []compareRow, targets []target) {
	var reals, ours []target
	for _, t := range targets {
		switch {
		case strings.HasPrefix(t.col, colReal+":"):
			reals = append(reals, t)
		case t.col == col19 || t.col == colCQL:
			ours = append(ours, t)
		}
	}
	if len(reals) == 0 || len(ours) == 0 {
		return
	}
	fmt.Printf("\nthriftd beside the real servers: throughput thriftd / real, and CPU per call real / thriftd (above 1: thriftd costs less)\n\n")
	head := "| shape | conns |"
	line := "|---|---:|"
	for _, o := range ours {
		for _, rl := range reals {
			head += fmt.Sprintf(" %s / %s ops | %s CPU / %s CPU |", o.title, rl.title, rl.title, o.title)
			line += "---:|---:|"
		}
	}
	fmt.Println(head)
	fmt.Println(line)
	sum := func(ds []time.Duration) time.Duration {
		var t time.Duration
		for _, d := range ds {
			t += d
		}
		return t
	}
	for _, r := range table {
		fmt.Printf("| %s | %d |", r.shape, r.conns)
		for _, o := range ours {
			for _, rl := range reals {
				if r.ops[rl.col] > 0 && r.ops[o.col] > 0 {
					fmt.Printf(" %.2f |", r.ops[o.col]/r.ops[rl.col])
				} else {
					fmt.Printf(" — |")
				}
				if c := sum(r.cpu[o.col]); c > 0 && sum(r.cpu[rl.col]) > 0 {
					fmt.Printf(" %.2f |", float64(sum(r.cpu[rl.col]))/float64(c))
				} else {
					fmt.Printf(" — |")
				}
			}
		}
		fmt.Println()
	}
}
