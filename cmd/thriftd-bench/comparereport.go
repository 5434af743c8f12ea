package main

import (
	"fmt"
	"slices"
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
			switch c.col {
			case colCQL:
				title += " (thriftd+C*)"
			case colDirect:
				title += " (client+C*)"
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

// orderedColumns are the targets in the order of compareColumns.
func orderedColumns(targets []target) []target {
	var cols []target
	for _, c := range compareColumns {
		for _, t := range targets {
			if t.col == c || strings.HasPrefix(t.col, c+":") {
				cols = append(cols, t)
			}
		}
	}
	return cols
}

// cpuCell is a column's CPU time per call, one figure per process.
func cpuCell(ds []time.Duration) string {
	if len(ds) == 0 {
		return "—"
	}
	var parts []string
	for _, d := range ds {
		parts = append(parts, fmt.Sprintf("%.0f", micros(d)))
	}
	return strings.Join(parts, " + ")
}

// printRate prints, for every column, its maximum throughput beside its
// CPU per call at the shape's fixed rate of -rate (the rate it reached,
// when it fell short by more than 5%).
func printRate(table []compareRow, targets []target) {
	if !slices.ContainsFunc(table, func(r compareRow) bool { return r.rate > 0 }) {
		return
	}
	cols := orderedColumns(targets)
	fmt.Printf("\nAt a fixed rate (open loop; the row's calls/s), beside each server's maximum: maximum calls/s, and CPU µs per call at the fixed rate (thriftd on C* 5: thriftd + node; direct CQL: client + node)\n\n")
	head, line := "| shape | conns | fixed rate |", "|---|---:|---:|"
	for _, c := range cols {
		head += " " + c.title + " max calls/s | " + c.title + " CPU µs/call at the rate |"
		line += "---:|---:|"
	}
	fmt.Println(head)
	fmt.Println(line)
	for _, r := range table {
		fmt.Printf("| %s | %d | %s |", r.shape, r.conns, rateCell(r.rate))
		for _, c := range cols {
			if ops, ok := r.ops[c.col]; ok {
				fmt.Printf(" %.0f |", ops)
			} else {
				fmt.Printf(" — |")
			}
			reached, ok := r.rateOps[c.col]
			switch {
			case !ok:
				fmt.Printf(" — |")
			case reached < 0.95*r.rate:
				fmt.Printf(" %s (reached %.0f/s) |", cpuCell(r.rateCPU[c.col]), reached)
			default:
				fmt.Printf(" %s |", cpuCell(r.rateCPU[c.col]))
			}
		}
		fmt.Println()
	}
}

// rateCell is a row's fixed rate, "—" when it has none.
func rateCell(rate float64) string {
	if rate <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f/s", rate)
}

// printFloor prints thriftd on the Cassandra store beside the direct CQL
// client on the same node: throughput, and CPU per call at the maximum
// and at the fixed rate (all processes', then the node's alone).
func printFloor(table []compareRow, targets []target) {
	has := map[string]bool{}
	for _, t := range targets {
		has[t.col] = true
	}
	if !has[colCQL] || !has[colDirect] {
		return
	}
	sum := func(ds []time.Duration) time.Duration {
		var t time.Duration
		for _, d := range ds {
			t += d
		}
		return t
	}
	ratio := func(a, b time.Duration) string {
		if a == 0 || b == 0 {
			return "—"
		}
		return fmt.Sprintf("%.2f", float64(a)/float64(b))
	}
	node := func(ds []time.Duration) time.Duration {
		if len(ds) < 2 {
			return 0
		}
		return sum(ds[1:])
	}
	fmt.Printf("\nthriftd on C* 5 beside the direct CQL client (goals: throughput at least 0.60; CPU per call, thriftd + node over client + node, at most 1.25)\n\n")
	fmt.Printf("| shape | conns | throughput thriftd / direct | CPU per call at max, thriftd+node / client+node | node's CPU per call at max, thriftd / direct | fixed rate | CPU per call at the rate, thriftd+node / client+node | node's at the rate |\n")
	fmt.Printf("|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range table {
		tp := "—"
		if r.ops[colDirect] > 0 && r.ops[colCQL] > 0 {
			tp = fmt.Sprintf("%.2f", r.ops[colCQL]/r.ops[colDirect])
		}
		fmt.Printf("| %s | %d | %s | %s | %s | %s | %s | %s |\n", r.shape, r.conns, tp,
			ratio(sum(r.cpu[colCQL]), sum(r.cpu[colDirect])), ratio(node(r.cpu[colCQL]), node(r.cpu[colDirect])), rateCell(r.rate),
			ratio(sum(r.rateCPU[colCQL]), sum(r.rateCPU[colDirect])), ratio(node(r.rateCPU[colCQL]), node(r.rateCPU[colDirect])))
	}
}
