package main

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The histogram's percentiles must stay within its stated 1/64 relative
// error of the exact nearest-rank percentile of the same samples.
func TestHistogramQuantileWithinBucketError(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		var h histogram
		n := 1 + rng.IntN(5000)
		vals := make([]time.Duration, n)
		for i := range vals {
			// Spread over ns to seconds, as latencies are.
			vals[i] = time.Duration(rng.ExpFloat64() * float64(time.Duration(1)<<rng.IntN(32)))
			h.record(vals[i])
		}
		slices.Sort(vals)
		for _, q := range []float64{0, 0.5, 0.95, 0.99, 0.999, 1} {
			rank := int(q*float64(n) + 0.999999999)
			exact := vals[min(max(rank, 1), n)-1]
			got := h.quantile(q)
			if diff := got - exact; diff < -exact/64-1 || diff > exact/64+1 {
				t.Fatalf("trial %d: q%.3f of %d samples = %v, exact %v", trial, q, n, got, exact)
			}
		}
		if h.max != vals[n-1] {
			t.Fatalf("max %v, want %v", h.max, vals[n-1])
		}
	}
}

func TestBucketsAreOrderedAndContainTheirValues(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 127, 128, 129, 255, 256, 1000, 123456789, 1 << 40, 1<<62 + 12345} {
		b := bucketOf(d)
		if b < 0 || b >= histBuckets {
			t.Fatalf("bucket of %v is %d, outside [0, %d)", d, b, histBuckets)
		}
		if mid := bucketMid(b); mid < d-d/64-1 || mid > d+d/64+1 {
			t.Fatalf("bucket of %v has middle %v, more than 1/64 away", d, mid)
		}
		if b > 0 && bucketOf(d+d/32+2) <= b {
			t.Fatalf("a larger duration than %v falls in the same or a lower bucket", d)
		}
	}
}

// py_stress keys: zero-padded to the width of -n, split between workers in
// consecutive runs of n/t keys.
func TestKeysAsPyStress(t *testing.T) {
	if got := formatKey(42, len("1000000")); got != "0000042" {
		t.Fatalf("key 42 of 1000000 = %q, want 0000042", got)
	}
	o, err := parseOptions([]string{"-n", "1000", "-t", "3", "-N", "0.5"})
	if err != nil {
		t.Fatal(err)
	}
	// 1000/3 = 333 keys each; half of each run is skipped.
	ranges := [][2]int{{166, 333}, {499, 666}, {832, 999}}
	for id, want := range ranges {
		if first, end := keyRange(o, id); [2]int{first, end} != want {
			t.Fatalf("worker %d keys [%d, %d), want %v", id, first, end, want)
		}
	}
}

func TestDefaultsMatchPyStress(t *testing.T) {
	o, err := parseOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.numKeys != 1000000 || o.threads != 50 || o.columns != 5 || o.columnSize != 32 || o.port != 9160 ||
		o.operation != "insert" || o.rangeCount != 1000 || o.interval != 10*time.Second || o.stdev != 0.1 ||
		o.familyType != "regular" || o.superColumns != 1 || o.framed || o.columnFamily != "Standard1" {
		t.Fatalf("defaults differ from py_stress: %+v", o)
	}
}

func TestWorkerValue(t *testing.T) {
	for _, size := range []int{0, 1, 32, 33, 100} {
		if v := workerValue(3, size); len(v) != size {
			t.Fatalf("value of size %d has %d bytes", size, len(v))
		}
	}
}

// -api 19 is the 19.x client; get_paged_slice exists only there, and it
// has no super column families to write.
func TestAPIOption(t *testing.T) {
	for _, tc := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"-api", "19", "-o", "paged"}, true},
		{[]string{"-api", "19", "-o", "batch"}, true},
		{[]string{"-o", "paged"}, false},
		{[]string{"-api", "0.7"}, false},
		{[]string{"-api", "19", "-y", "super"}, false},
	} {
		o, err := parseOptions(tc.args)
		if (err == nil) != tc.ok {
			t.Fatalf("%v: error %v, want ok=%v", tc.args, err, tc.ok)
		}
		if err == nil && o.api != tc.args[1] {
			t.Fatalf("%v: api %q", tc.args, o.api)
		}
	}
}

// Secondary index operations are 19.x's and need the values' count.
func TestIndexedOptions(t *testing.T) {
	for _, args := range [][]string{
		{"-o", "indexed", "-api", "19"},
		{"-o", "indexed", "-index-values", "100"},
		{"-o", "batch", "-index-values", "-1", "-api", "19"},
	} {
		if _, err := parseOptions(args); err == nil {
			t.Fatalf("%v was accepted", args)
		}
	}
	o, err := parseOptions([]string{"-o", "indexed", "-api", "19", "-index-values", "100", "-g", "10"})
	if err != nil || o.indexValues != 100 {
		t.Fatalf("options %+v, error %v", o, err)
	}
	if got := string(indexValue(142 % 100)); got != "v42" {
		t.Fatalf("index value of key 142 = %q", got)
	}
}
