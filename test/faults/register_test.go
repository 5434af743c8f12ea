package faults

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

var ctx = context.Background()

// The registers live in family regCF, one row per register: column "k"
// always holds "1" and column "v" the register's value. A write is a
// compare-and-set on "k" that sets "v", so every write goes through Paxos
// like a cas; a read is a get of "v" at SERIAL.
const regCF = "Registers"

const (
	opRead = iota
	opWrite
	opCAS
)

type regInput struct {
	op   int
	key  int
	from int // cas: the value expected
	to   int // write and cas: the value written
}

type regOutput struct {
	ok      bool // cas: applied; write: applied
	value   int  // read: the value, -1 when the column is absent
	unknown bool // no answer known: may or may not have taken effect
}

// registerModel is porcupine's register, one per key, with an operation
// whose outcome is unknown allowed to have taken effect or not, at any point
// after its call (its return is placed at the end of the history).
var registerModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		byKey := map[int][]porcupine.Operation{}
		var keys []int
		for _, op := range history {
			k := op.Input.(regInput).key
			if _, seen := byKey[k]; !seen {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], op)
		}
		var out [][]porcupine.Operation
		for _, k := range keys {
			out = append(out, byKey[k])
		}
		return out
	},
	Init: func() interface{} { return 0 },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		st := state.(int)
		in := input.(regInput)
		out := output.(regOutput)
		switch in.op {
		case opRead:
			return out.unknown || out.value == st, st
		case opWrite:
			return out.unknown || out.ok, in.to
		default:
			if in.from == st {
				return out.unknown || out.ok, in.to
			}
			return out.unknown || !out.ok, st
		}
	},
	DescribeOperation: func(input, output interface{}) string {
		in := input.(regInput)
		out := output.(regOutput)
		res := fmt.Sprint(out.ok)
		if out.unknown {
			res = "unknown"
		}
		switch in.op {
		case opRead:
			if out.unknown {
				return fmt.Sprintf("r%d read -> unknown", in.key)
			}
			return fmt.Sprintf("r%d read -> %d", in.key, out.value)
		case opWrite:
			return fmt.Sprintf("r%d write(%d) -> %s", in.key, in.to, res)
		}
		return fmt.Sprintf("r%d cas(%d, %d) -> %s", in.key, in.from, in.to, res)
	},
}

func regKey(k int) []byte { return []byte("reg" + strconv.Itoa(k)) }

func regColumn(name string, v int) *cassandra19.Column {
	ts := time.Now().UnixMicro()
	return &cassandra19.Column{Name: []byte(name), Value: []byte(strconv.Itoa(v)), Timestamp: &ts}
}

// registers is the cas register workload.
type registers struct {
	keys int

	mu      sync.Mutex
	history []porcupine.Operation
	calls   tally
	byOp    [3]tally
}

const casSerial, casCommit = cassandra19.ConsistencyLevel_SERIAL, cassandra19.ConsistencyLevel_QUORUM

// create makes every register's row, value 0.
func (w *registers) create(t *testing.T, c *cassandra19.CassandraClient) {
	t.Helper()
	for k := 0; k < w.keys; k++ {
		r, err := c.Cas(ctx, regKey(k), regCF, nil, []*cassandra19.Column{regColumn("k", 1), regColumn("v", 0)}, casSerial, casCommit)
		if err != nil {
			t.Fatalf("creating register %d: %v", k, err)
		}
		if !r.Success {
			t.Fatalf("creating register %d: it exists: %v", k, r.CurrentValues)
		}
	}
}

// one runs one operation and returns its input and output.
func (w *registers) one(c *cassandra19.CassandraClient, rng *rand.Rand, last []int, next func() int) (regInput, regOutput, error) {
	in := regInput{key: rng.IntN(w.keys)}
	switch p := rng.IntN(10); {
	case p < 4:
		in.op = opRead
	case p < 6:
		in.op = opWrite
		in.to = next()
	default:
		in.op = opCAS
		in.from, in.to = last[in.key], next()
		if rng.IntN(4) == 0 {
			in.from = next() // a value never written: the cas must fail
		}
	}
	key := regKey(in.key)
	switch in.op {
	case opRead:
		col, err := c.Get(ctx, key, &cassandra19.ColumnPath{ColumnFamily: regCF, Column: []byte("v")}, casSerial)
		var nf *cassandra19.NotFoundException
		if errors.As(err, &nf) {
			return in, regOutput{value: -1}, nil
		}
		if err != nil {
			return in, regOutput{}, err
		}
		v, perr := strconv.Atoi(string(col.Column.Value))
		if perr != nil {
			return in, regOutput{}, fmt.Errorf("register %d holds %q", in.key, col.Column.Value)
		}
		last[in.key] = v
		return in, regOutput{value: v}, nil
	case opWrite:
		r, err := c.Cas(ctx, key, regCF, []*cassandra19.Column{regColumn("k", 1)}, []*cassandra19.Column{regColumn("v", in.to)}, casSerial, casCommit)
		if err != nil {
			return in, regOutput{}, err
		}
		return in, regOutput{ok: r.Success}, nil
	}
	r, err := c.Cas(ctx, key, regCF, []*cassandra19.Column{regColumn("v", in.from)}, []*cassandra19.Column{regColumn("v", in.to)}, casSerial, casCommit)
	if err != nil {
		return in, regOutput{}, err
	}
	if r.Success {
		last[in.key] = in.to
	} else {
		for _, cv := range r.CurrentValues {
			if string(cv.Name) == "v" {
				if v, err := strconv.Atoi(string(cv.Value)); err == nil {
					last[in.key] = v
				}
			}
		}
	}
	return in, regOutput{ok: r.Success}, nil
}

// worker runs operations through d until stop closes or max operations.
// Every value written is unique: worker id times a million plus a sequence.
func (w *registers) worker(d *thriftd, id int, stop <-chan struct{}, max int, start time.Time) {
	rng := rand.New(rand.NewPCG(uint64(id), uint64(start.UnixNano())))
	last := make([]int, w.keys)
	seq := 0
	next := func() int { seq++; return (id+1)*1_000_000 + seq }
	c := d.dial(stop, ks)
	for i := 0; i < max && c != nil; i++ {
		select {
		case <-stop:
			c.Close()
			return
		default:
		}
		call := time.Since(start).Nanoseconds()
		in, out, err := w.one(c.CassandraClient, rng, last, next)
		ret := time.Since(start).Nanoseconds()
		o := classify(err)
		w.calls.add(o, err)
		w.byOp[in.op].add(o, err)
		switch o {
		case ok:
		case failed:
			// Not applied: it never happened.
			continue
		default:
			if in.op == opRead {
				continue // a read with no answer changed nothing
			}
			out = regOutput{unknown: true}
			ret = math.MaxInt64
		}
		w.mu.Lock()
		w.history = append(w.history, porcupine.Operation{ClientId: id, Input: in, Call: call, Output: out, Return: ret})
		w.mu.Unlock()
		if o == lostConn || o == otherFailed {
			c.Close()
			c = d.dial(stop, ks)
		}
	}
	if c != nil {
		c.Close()
	}
}

// check runs porcupine on the history and returns its verdict.
func (w *registers) check(t *testing.T, timeout time.Duration) (porcupine.CheckResult, string) {
	t.Helper()
	w.mu.Lock()
	history := append([]porcupine.Operation(nil), w.history...)
	w.mu.Unlock()
	unknown := 0
	for _, op := range history {
		if op.Output.(regOutput).unknown {
			unknown++
		}
	}
	began := time.Now()
	res, info := porcupine.CheckOperationsVerbose(registerModel, history, timeout)
	summary := fmt.Sprintf("%d operations in the history (%d of unknown outcome), porcupine: %s in %v",
		len(history), unknown, res, time.Since(began).Round(time.Millisecond))
	if res == porcupine.Illegal {
		// Kept after the test: the history that shows the anomaly.
		if f, err := os.CreateTemp("", "thriftd-faults-registers-*.html"); err == nil {
			f.Close()
			if err := porcupine.VisualizePath(registerModel, info, f.Name()); err == nil {
				summary += "; visualization: " + f.Name()
			}
		}
	}
	return res, summary
}
