package reliability

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

const ks1 = "Keyspace1"

var one = cassandra.ConsistencyLevel_ONE

func long(v int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(v)) }

// The shapes a crash writer writes. Every write's content follows from its
// kind, writer and sequence number, so a reader can tell exactly what an
// acknowledged write must have left behind.
type opKind int

const (
	insertStandard opKind = iota // insert: one column into Standard1
	insertSuper                  // insert: one subcolumn into Super1
	batchFresh                   // batch_mutate: a new row, 20 columns in Standard1 and 5 subcolumns in Super1
	batchOverwrite               // batch_mutate: the writer's own row, every cell rewritten with the next generation
	numKinds
)

const (
	batchStdCols   = 20
	batchSuperCols = 5
	overwriteCols  = 10
)

// op is one write: acked once thriftd replied without an error; a write
// whose call failed (the process was killed) is in doubt and may or may
// not have happened, but never in part.
type op struct {
	kind   opKind
	writer int
	seq    int64
	acked  bool
}

func (o op) key() string {
	switch o.kind {
	case batchOverwrite:
		return fmt.Sprintf("gen-%d", o.writer)
	default:
		return fmt.Sprintf("k%d-w%d-%d", o.kind, o.writer, o.seq)
	}
}

func value(seq int64) []byte { return []byte(fmt.Sprintf("v%d", seq)) }

func stdCol(i int) []byte { return []byte(fmt.Sprintf("c%02d", i)) }

// mutations returns the batch_mutate row of a batch op.
func (o op) mutations() map[string][]*cassandra.Mutation {
	std, subs := batchStdCols, batchSuperCols
	if o.kind == batchOverwrite {
		std = overwriteCols
	}
	colMut := func(c *cassandra.Column) *cassandra.Mutation {
		return &cassandra.Mutation{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{Column: c}}
	}
	var s1 []*cassandra.Mutation
	for i := range std {
		s1 = append(s1, colMut(&cassandra.Column{Name: stdCol(i), Value: value(o.seq), Timestamp: o.seq}))
	}
	sc := &cassandra.SuperColumn{Name: []byte("sc")}
	for i := range subs {
		sc.Columns = append(sc.Columns, &cassandra.Column{Name: long(int64(i)), Value: value(o.seq), Timestamp: o.seq})
	}
	return map[string][]*cassandra.Mutation{
		"Standard1": s1,
		"Super1":    {{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{SuperColumn: sc}}},
	}
}

func (o op) apply(c *client) error {
	switch o.kind {
	case insertStandard:
		return c.Insert(ctx, ks1, o.key(), &cassandra.ColumnPath{ColumnFamily: "Standard1", Column: []byte("c")}, value(o.seq), o.seq, one)
	case insertSuper:
		return c.Insert(ctx, ks1, o.key(), &cassandra.ColumnPath{ColumnFamily: "Super1", SuperColumn: []byte("sc"), Column: long(o.seq)}, value(o.seq), o.seq, one)
	default:
		return c.BatchMutate(ctx, ks1, map[string]map[string][]*cassandra.Mutation{o.key(): o.mutations()}, one)
	}
}

// rowState is what one key holds in Standard1 and Super1, as read back.
type rowState struct {
	std   []*cassandra.ColumnOrSuperColumn
	super []*cassandra.ColumnOrSuperColumn
}

// cells lists every cell of the row as "cf/name=value".
func (r rowState) cells() []string {
	var out []string
	for _, c := range r.std {
		out = append(out, fmt.Sprintf("Standard1/%s=%s", c.Column.Name, c.Column.Value))
	}
	for _, s := range r.super {
		for _, c := range s.SuperColumn.Columns {
			out = append(out, fmt.Sprintf("Super1/%s/%x=%s", s.SuperColumn.Name, c.Name, c.Value))
		}
	}
	return out
}

// readRows reads keys from Standard1 and Super1.
func readRows(c *client, keys []string) (map[string]rowState, error) {
	out := map[string]rowState{}
	pred := &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 1000}}
	for start := 0; start < len(keys); start += 200 {
		chunk := keys[start:min(start+200, len(keys))]
		std, err := c.MultigetSlice(ctx, ks1, chunk, &cassandra.ColumnParent{ColumnFamily: "Standard1"}, pred, one)
		if err != nil {
			return nil, err
		}
		sup, err := c.MultigetSlice(ctx, ks1, chunk, &cassandra.ColumnParent{ColumnFamily: "Super1"}, pred, one)
		if err != nil {
			return nil, err
		}
		for _, k := range chunk {
			out[k] = rowState{std: std[k], super: sup[k]}
		}
	}
	return out, nil
}

// wantCells is everything op o leaves in its row.
func (o op) wantCells() []string {
	switch o.kind {
	case insertStandard:
		return []string{fmt.Sprintf("Standard1/c=%s", value(o.seq))}
	case insertSuper:
		return []string{fmt.Sprintf("Super1/sc/%x=%s", long(o.seq), value(o.seq))}
	}
	var out []string
	muts := o.mutations()
	for _, m := range muts["Standard1"] {
		c := m.ColumnOrSupercolumn.Column
		out = append(out, fmt.Sprintf("Standard1/%s=%s", c.Name, c.Value))
	}
	for _, c := range muts["Super1"][0].ColumnOrSupercolumn.SuperColumn.Columns {
		out = append(out, fmt.Sprintf("Super1/sc/%x=%s", c.Name, c.Value))
	}
	return out
}

func sameCells(got, want []string) bool {
	g := append([]string(nil), got...)
	w := append([]string(nil), want...)
	sort.Strings(g)
	sort.Strings(w)
	return fmt.Sprint(g) == fmt.Sprint(w)
}

// ledger is what the writers did, across kill cycles.
type ledger struct {
	mu sync.Mutex
	// acked[w] and attempted[w] are the generations of writer w's
	// overwrites of its own row: the row must hold exactly one generation,
	// at least the last acked one and at most the last attempted one.
	acked, attempted map[int]int64
}

// check verifies fresh ops (and every writer's overwritten row) against
// what thriftd returns, reporting at most a few failures.
func (l *ledger) check(t *testing.T, c *client, fresh []op) {
	t.Helper()
	keys := make([]string, 0, len(fresh)+len(l.attempted))
	for _, o := range fresh {
		keys = append(keys, o.key())
	}
	writers := make([]int, 0, len(l.attempted))
	for w := range l.attempted {
		writers = append(writers, w)
		keys = append(keys, op{kind: batchOverwrite, writer: w}.key())
	}
	rows, err := readRows(c, keys)
	if err != nil {
		t.Fatalf("reading back after restart: %v", err)
	}
	failures := 0
	fail := func(format string, args ...any) {
		t.Helper()
		if failures++; failures <= 5 {
			t.Errorf(format, args...)
		}
	}
	for _, o := range fresh {
		got := rows[o.key()].cells()
		switch {
		case sameCells(got, o.wantCells()):
		case len(got) == 0 && !o.acked:
			// An unacknowledged write may not have happened.
		case len(got) == 0:
			fail("acknowledged write lost: kind %d key %s", o.kind, o.key())
		default:
			fail("write half applied or altered: kind %d key %s acked=%v holds %v", o.kind, o.key(), o.acked, got)
		}
	}
	for _, w := range writers {
		o := op{kind: batchOverwrite, writer: w}
		got := rows[o.key()].cells()
		if len(got) == 0 {
			if l.acked[w] > 0 {
				fail("row %s lost: generation %d was acknowledged", o.key(), l.acked[w])
			}
			continue
		}
		ok := false
		for g := max(l.acked[w], 1); g <= l.attempted[w]; g++ {
			o.seq = g
			if sameCells(got, o.wantCells()) {
				ok = true
				break
			}
		}
		if !ok {
			fail("row %s does not hold one whole generation in [%d, %d]: %v", o.key(), l.acked[w], l.attempted[w], got)
		}
	}
	if failures > 5 {
		t.Errorf("... %d failures in all", failures)
	}
}

// writeUntilKilled runs writers against n until the node is killed after
// killAfter; it returns the fresh ops of this cycle.
func (l *ledger) writeUntilKilled(t *testing.T, n *node, writers int, seq *int64, killAfter time.Duration, rng *rand.Rand) []op {
	var (
		mu    sync.Mutex
		fresh []op
		wg    sync.WaitGroup
	)
	for w := range writers {
		c, err := dial(n.Addr, w%2 == 1, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		wrng := rand.New(rand.NewPCG(rng.Uint64(), uint64(w)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			for {
				mu.Lock()
				*seq++
				o := op{kind: opKind(wrng.IntN(int(numKinds))), writer: w, seq: *seq}
				mu.Unlock()
				if o.kind == batchOverwrite {
					l.mu.Lock()
					l.attempted[w] = o.seq
					l.mu.Unlock()
				}
				err := o.apply(c)
				o.acked = err == nil
				if o.kind == batchOverwrite {
					if o.acked {
						l.mu.Lock()
						l.acked[w] = o.seq
						l.mu.Unlock()
					}
				} else {
					mu.Lock()
					fresh = append(fresh, o)
					mu.Unlock()
				}
				if err != nil {
					return // killed
				}
			}
		}()
	}
	time.Sleep(killAfter)
	n.Kill()
	wg.Wait()
	return fresh
}

// crashCycles starts thriftd on one data directory again and again, kills
// it with SIGKILL while writers are busy, and after every restart checks
// that each acknowledged write is there in full and no write is there in
// part.
func crashCycles(t *testing.T, conf string, cycles int) {
	n := newNode(t, conf)
	l := &ledger{acked: map[int]int64{}, attempted: map[int]int64{}}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	var (
		seq      int64
		all      []op
		previous []op
		acked    int
	)
	const writers = 4
	for cycle := 0; cycle < cycles; cycle++ {
		n.Start()
		c := n.Client(true)
		// What the previous cycle wrote, and the overwritten rows.
		l.check(t, c, previous)
		if t.Failed() {
			t.Fatalf("after kill cycle %d", cycle)
		}
		c.Close()
		killAfter := time.Duration(20+rng.IntN(380)) * time.Millisecond
		previous = l.writeUntilKilled(t, n, writers, &seq, killAfter, rng)
		for _, o := range previous {
			if o.acked {
				acked++
			}
		}
		all = append(all, previous...)
	}
	// Finally everything, from every cycle: a later crash must not lose an
	// earlier write either.
	n.Start()
	l.check(t, n.Client(false), all)
	t.Logf("%d kill cycles, %d acknowledged fresh writes, overwrite generations %v", cycles, acked, l.acked)
	if acked == 0 {
		t.Fatal("no write was acknowledged: the test checked nothing")
	}
}

// TestCrashBatch: with CommitLogSync batch (the 0.6 test configuration),
// every acknowledged write survives SIGKILL and no batch_mutate row is ever
// half applied.
func TestCrashBatch(t *testing.T) {
	cycles := 20
	if longRun {
		cycles = 200
	}
	crashCycles(t, fixture(testConf), cycles)
}

// TestCrashPeriodic: with CommitLogSync periodic (the stock 0.6
// configuration, fsync every 10 s), acknowledged writes still survive the
// process being killed, because they reached the operating system before
// the reply. (An operating system crash may lose the last period; that
// cannot be tested from inside the machine.)
func TestCrashPeriodic(t *testing.T) {
	cycles := 8
	if longRun {
		cycles = 100
	}
	crashCycles(t, fixture(defaultConf), cycles)
}
