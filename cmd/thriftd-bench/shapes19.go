package main

import (
	"strconv"
)

// shape19 is one request shape of the comparison.
type shape19 struct {
	name string
	// args19 are thriftd-stress's for the 19.x client, args06 for the 0.6
	// client doing the same work.
	args19, args06 []string
	// note says how the 0.6 call differs, when it does.
	note string
	// indexed shapes read the Indexed family: -n is its rows, -g the
	// rows that hold one value of its indexed column.
	indexed bool
}

// indexValues is how many values the Indexed family's indexed column
// takes, each in as many rows: one value matches 1% of them.
const indexValues = 100

// args19For are thriftd-stress's arguments for s on the 19.x API over
// rows loaded rows (or the Indexed family's indexRows).
func (s shape19) args19For(rows, indexRows int) []string {
	if !s.indexed {
		return append([]string{"-n", strconv.Itoa(rows)}, s.args19...)
	}
	return append([]string{"-n", strconv.Itoa(indexRows), "-g", strconv.Itoa(max(1, indexRows/indexValues))}, s.args19...)
}

// shapes19 are the comparison's shapes, the reads first: the
// compactions a write figure leaves behind would fall into the next
// figures.
func shapes19() []shape19 {
	read := func(a ...string) []string { return a }
	return []shape19{
		{name: "get_slice (10 of 100 columns)",
			args19: read("-o", "read", "-c", "100", "-slice", "10", "-r"),
			args06: read("-o", "read", "-c", "100", "-slice", "10", "-r")},
		{name: "multiget_slice (10 keys × 10 columns)",
			args19: read("-o", "multiget", "-multiget", "10", "-c", "100", "-slice", "10", "-r"),
			args06: read("-o", "multiget", "-multiget", "10", "-c", "100", "-slice", "10", "-r")},
		{name: "get_range_slices (100 rows × 5 of 100 columns)",
			args19: read("-o", "rangeslice", "-g", "100", "-c", "100", "-slice", "5"),
			args06: read("-o", "rangeslice", "-g", "100", "-c", "100", "-slice", "5")},
		{name: "get_paged_slice (500 columns: 5 rows × 100)",
			args19: read("-o", "paged", "-g", "500", "-c", "100"),
			args06: read("-o", "rangeslice", "-g", "5", "-c", "100", "-slice", "100"),
			note:   "0.6 has no get_paged_slice: get_range_slices of 5 rows × 100 columns"},
		{name: "insert (1 column)",
			args19: read("-o", "insert", "-c", "1", "-cf", "Standard2", "-now"),
			args06: read("-o", "insert", "-c", "1", "-cf", "Standard2", "-now"),
			note:   "0.6: batch_insert of 1 column"},
		{name: "batch_mutate (100 columns)",
			args19: read("-o", "batch", "-c", "100", "-cf", "Standard2", "-now"),
			args06: read("-o", "batch", "-c", "100", "-cf", "Standard2", "-now")},
		// Counters: 0.6 has none, so the 0.6 column is left empty.
		{name: "add (one hot counter)",
			args19: read("-o", "add", "-c", "1", "-cf", "Counters", "-s", "0"),
			note:   "every connection adds 1 to the same counter; 0.6 has no counters"},
		{name: "add (a random counter of the loaded rows' keys)",
			args19: read("-o", "add", "-c", "1", "-cf", "Counters", "-r"),
			note:   "each call adds 1 to the counter of a random row; 0.6 has no counters"},
		// Secondary indexes: 0.6 has none.
		{name: "get_indexed_slices (EQ on a KEYS index: the 1% of rows that match, 2 columns each)",
			args19:  read("-o", "indexed", "-cf", "Indexed", "-index-values", strconv.Itoa(indexValues), "-slice", "2"),
			note:    "every row whose indexed column holds one value (1 of 100, chosen at random) in one call, with 2 of its 6 columns; 0.6 has no secondary indexes",
			indexed: true},
	}
}
