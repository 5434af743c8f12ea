package reliability

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

// Counters under SIGKILL. Writers add to a few hot counters (add, and
// batch_mutate adding to two counters of two rows) while thriftd is killed
// again and again. After every restart each counter must equal exactly
// what the previous check read plus the adds acknowledged since, plus
// each add that was in flight at the kill either once or not at all:
// never twice (a replay that counts a delta again) and never an
// acknowledged one lost. Deltas are random up to 10^6, so that an add
// counted twice cannot pass for another in-flight add.

const (
	counterKS     = "Crash"
	counterRows   = 3
	counterNames  = 4
	counterWriter = 8
)

type counterID struct{ row, name int }

func (c counterID) key() []byte    { return []byte(fmt.Sprintf("row%d", c.row)) }
func (c counterID) col() []byte    { return []byte(fmt.Sprintf("c%d", c.name)) }
func (c counterID) String() string { return fmt.Sprintf("row%d/c%d", c.row, c.name) }

// counterLedger is the writers' record across kill cycles.
type counterLedger struct {
	mu sync.Mutex
	// base is each counter's total as the last check read it; acked the
	// sum of acknowledged adds since; doubt the deltas of adds whose call
	// failed at the kill.
	base  map[counterID]int64
	acked map[counterID]int64
	doubt map[counterID][]int64

	ackedAdds, doubtAdds, cycles int
	lost, twice                  int
}

func (l *counterLedger) record(ids []counterID, deltas []int64, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, id := range ids {
		if err == nil {
			l.acked[id] += deltas[i]
			l.ackedAdds++
		} else {
			l.doubt[id] = append(l.doubt[id], deltas[i])
			l.doubtAdds++
		}
	}
}

// subsetSums are the totals of every subset of ds, each delta at most
// once.
func subsetSums(ds []int64) map[int64]bool {
	sums := map[int64]bool{0: true}
	for _, d := range ds {
		next := make(map[int64]bool, 2*len(sums))
		for s := range sums {
			next[s] = true
			next[s+d] = true
		}
		sums = next
	}
	return sums
}

// check reads every counter and compares it with the ledger, then makes
// what it read the new base.
func (l *counterLedger) check(t *testing.T, c *testenv.Client19) {
	t.Helper()
	all := &cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 100}}
	var keys [][]byte
	for r := range counterRows {
		keys = append(keys, counterID{row: r}.key())
	}
	got, err := c.MultigetSlice(ctx, keys, &cassandra19.ColumnParent{ColumnFamily: "Hits"}, all, cassandra19.ConsistencyLevel_ONE)
	if err != nil {
		t.Fatalf("reading the counters back: %v", err)
	}
	read := map[counterID]int64{}
	for r := range counterRows {
		for _, cosc := range got[string(counterID{row: r}.key())] {
			var n int
			if _, err := fmt.Sscanf(string(cosc.CounterColumn.Name), "c%d", &n); err != nil {
				t.Fatalf("unexpected counter %q", cosc.CounterColumn.Name)
			}
			read[counterID{r, n}] = cosc.CounterColumn.Value
		}
	}
	for r := range counterRows {
		for n := range counterNames {
			id := counterID{r, n}
			extra := read[id] - l.base[id] - l.acked[id]
			switch {
			case subsetSums(l.doubt[id])[extra]:
			case extra < 0 && subsetSums(l.doubt[id])[0]:
				l.lost++
				t.Errorf("%s = %d: %d below the %d of the base and the acknowledged adds (in doubt: %v)", id, read[id], -extra, l.base[id]+l.acked[id], l.doubt[id])
			default:
				l.twice++
				t.Errorf("%s = %d: %d above the base and the acknowledged adds (%d), which no subset of the adds in doubt %v makes", id, read[id], extra, l.base[id]+l.acked[id], l.doubt[id])
			}
			l.base[id] = read[id]
		}
	}
	l.acked = map[counterID]int64{}
	l.doubt = map[counterID][]int64{}
}

// addUntilKilled runs the writers until n is killed after killAfter.
func (l *counterLedger) addUntilKilled(t *testing.T, n *node, killAfter time.Duration, rng *rand.Rand) {
	var wg sync.WaitGroup
	for w := range counterWriter {
		c, err := testenv.Dial19(n.Addr, true, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SetKeyspace(ctx, counterKS); err != nil {
			t.Fatal(err)
		}
		wrng := rand.New(rand.NewPCG(rng.Uint64(), uint64(w)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			pick := func() counterID { return counterID{wrng.IntN(counterRows), wrng.IntN(counterNames)} }
			for {
				var (
					ids    []counterID
					deltas []int64
					err    error
				)
				if wrng.IntN(2) == 0 {
					id, d := pick(), 1+wrng.Int64N(1_000_000)
					ids, deltas = []counterID{id}, []int64{d}
					err = c.Add(ctx, id.key(), &cassandra19.ColumnParent{ColumnFamily: "Hits"}, &cassandra19.CounterColumn{Name: id.col(), Value: d}, cassandra19.ConsistencyLevel_ONE)
				} else {
					// Two counters of two different rows in one batch.
					a, b := pick(), pick()
					for b.row == a.row {
						b = pick()
					}
					ids, deltas = []counterID{a, b}, []int64{1 + wrng.Int64N(1_000_000), 1 + wrng.Int64N(1_000_000)}
					m := map[string]map[string][]*cassandra19.Mutation{}
					for i, id := range ids {
						m[string(id.key())] = map[string][]*cassandra19.Mutation{"Hits": {{ColumnOrSupercolumn: &cassandra19.ColumnOrSuperColumn{
							CounterColumn: &cassandra19.CounterColumn{Name: id.col(), Value: deltas[i]}}}}}
					}
					err = c.BatchMutate(ctx, m, cassandra19.ConsistencyLevel_ONE)
				}
				var ire *cassandra19.InvalidRequestException
				if errors.As(err, &ire) {
					t.Errorf("an add was refused: %v", err)
					return
				}
				l.record(ids, deltas, err)
				if err != nil {
					return // killed
				}
			}
		}()
	}
	time.Sleep(killAfter)
	n.Kill()
	wg.Wait()
}

func counterCrashCycles(t *testing.T, conf string, cycles int) {
	n := newNode(t, conf, "-api", "auto")
	l := &counterLedger{base: map[counterID]int64{}, acked: map[counterID]int64{}, doubt: map[counterID][]int64{}}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	n.Start()
	c := n.Client19(true)
	hits := cassandra19.NewCfDef()
	hits.Keyspace, hits.Name, hits.ComparatorType = counterKS, "Hits", "UTF8Type"
	hits.DefaultValidationClass = thrift.StringPtr("CounterColumnType")
	// Durable writes, set explicitly (Go's zero value is false): the
	// counters must outlive the kills.
	if _, err := c.SystemAddKeyspace(ctx, &cassandra19.KsDef{Name: counterKS, StrategyClass: "SimpleStrategy", DurableWrites: true,
		StrategyOptions: map[string]string{"replication_factor": "1"}, CfDefs: []*cassandra19.CfDef{hits}}); err != nil {
		t.Fatal(err)
	}
	if def, err := c.DescribeKeyspace(ctx, counterKS); err != nil || !def.DurableWrites {
		t.Fatalf("keyspace %s: %v, durable writes %v; the kills need them", counterKS, err, def != nil && def.DurableWrites)
	}
	c.Close()
	for cycle := range cycles {
		if cycle > 0 {
			n.Start()
		}
		c := n.Client19(true)
		if err := c.SetKeyspace(ctx, counterKS); err != nil {
			t.Fatal(err)
		}
		l.check(t, c)
		c.Close()
		if t.Failed() {
			t.Fatalf("after kill cycle %d", cycle)
		}
		l.addUntilKilled(t, n, time.Duration(20+rng.IntN(380))*time.Millisecond, rng)
		l.cycles++
	}
	n.Start()
	c = n.Client19(true)
	if err := c.SetKeyspace(ctx, counterKS); err != nil {
		t.Fatal(err)
	}
	l.check(t, c)
	var ids []string
	for id, v := range l.base {
		ids = append(ids, fmt.Sprintf("%s=%d", id, v))
	}
	sort.Strings(ids)
	t.Logf("%d kill cycles, %d adds acknowledged, %d in flight at a kill; counted twice %d, lost %d; final totals %v",
		l.cycles, l.ackedAdds, l.doubtAdds, l.twice, l.lost, ids)
	if l.ackedAdds == 0 {
		t.Fatal("no add was acknowledged: the test checked nothing")
	}
}

// TestCrashCounters: with CommitLogSync batch, every acknowledged add
// survives SIGKILL exactly once.
func TestCrashCounters(t *testing.T) {
	cycles := 15
	if longRun {
		cycles = 150
	}
	counterCrashCycles(t, fixture(testConf), cycles)
}

// TestCrashCountersPeriodic: the same with CommitLogSync periodic: an add
// reached the operating system before its reply, so the process's death
// loses none.
func TestCrashCountersPeriodic(t *testing.T) {
	cycles := 8
	if longRun {
		cycles = 80
	}
	counterCrashCycles(t, fixture(defaultConf), cycles)
}
