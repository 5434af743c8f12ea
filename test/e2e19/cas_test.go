package e2e19

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
	"github.com/thriftd/thriftd/internal/testenv"
)

// casClients opens n connections to the node, each set to Keyspace1.
func casClients(t *testing.T, node *testenv.Node, n int) []*testenv.Client19 {
	t.Helper()
	cs := make([]*testenv.Client19, n)
	for i := range cs {
		cs[i] = node.Client19(true)
		must(t, cs[i].SetKeyspace(ctx, "Keyspace1"))
	}
	return cs
}

func casColumn(name, value string) *cassandra19.Column {
	return &cassandra19.Column{Name: []byte(name), Value: []byte(value), Timestamp: ts()}
}

// N clients, each on its own connection, race to create the same row
// with cas and an empty expected list: exactly one wins, and every loser
// is told the winner's column, which a SERIAL read then returns. The
// clients write one name, or each a name of its own, which only the
// row's absence, not any one name's, can keep apart.
func TestCASCreateRace(t *testing.T) {
	const n = 32
	node := start(t)
	cs := casClients(t, node, n)
	for _, ownNames := range []bool{false, true} {
		name := func(i int) string {
			if ownNames {
				return "owner" + strconv.Itoa(i)
			}
			return "owner"
		}
		key := []byte(fmt.Sprintf("cas-race-%t-%d", ownNames, time.Now().UnixNano()))
		results := make([]*cassandra19.CASResult_, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		startLine := make(chan struct{})
		began := time.Now()
		for i := range cs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-startLine
				results[i], errs[i] = cs[i].Cas(ctx, key, "Standard1", nil,
					[]*cassandra19.Column{casColumn(name(i), strconv.Itoa(i))},
					cassandra19.ConsistencyLevel_SERIAL, cassandra19.ConsistencyLevel_QUORUM)
			}()
		}
		close(startLine)
		wg.Wait()
		took := time.Since(began)
		winner := -1
		for i := range cs {
			if errs[i] != nil {
				t.Fatalf("client %d: %v", i, errs[i])
			}
			if results[i].Success {
				if winner >= 0 {
					t.Fatalf("own names %t: clients %d and %d both created the row", ownNames, winner, i)
				}
				winner = i
				if results[i].IsSetCurrentValues() {
					t.Errorf("the winner got current values %v", results[i].CurrentValues)
				}
			}
		}
		if winner < 0 {
			t.Fatalf("own names %t: no client created the row", ownNames)
		}
		for i, r := range results {
			if i == winner {
				continue
			}
			if len(r.CurrentValues) != 1 || string(r.CurrentValues[0].Name) != name(winner) || string(r.CurrentValues[0].Value) != strconv.Itoa(winner) {
				t.Errorf("own names %t: loser %d was told %v, want %s=%d", ownNames, i, r.CurrentValues, name(winner), winner)
			}
		}
		got, err := cs[0].GetSlice(ctx, key, &cassandra19.ColumnParent{ColumnFamily: "Standard1"},
			&cassandra19.SlicePredicate{SliceRange: &cassandra19.SliceRange{Start: []byte{}, Finish: []byte{}, Count: 100}}, cassandra19.ConsistencyLevel_SERIAL)
		must(t, err)
		if len(got) != 1 || string(got[0].Column.Name) != name(winner) || string(got[0].Column.Value) != strconv.Itoa(winner) {
			t.Errorf("own names %t: SERIAL read gives %v, the winner was %d", ownNames, got, winner)
		}
		t.Logf("backend %s: %d clients raced to create one row (own names %t) in %v: exactly one (client %d) won, %d were told its column",
			testenv.Backend(), n, ownNames, took.Round(time.Millisecond), winner, n-1)
	}
}

// N clients increment one value by cas, each retrying with the current
// value the failed cas returned: no increment is lost.
func TestCASIncrementRace(t *testing.T) {
	const n, iterations = 32, 10
	node := start(t)
	cs := casClients(t, node, n)
	key := []byte(fmt.Sprintf("cas-incr-%d", time.Now().UnixNano()))
	r, err := cs[0].Cas(ctx, key, "Standard1", nil, []*cassandra19.Column{casColumn("v", "0")},
		cassandra19.ConsistencyLevel_SERIAL, cassandra19.ConsistencyLevel_QUORUM)
	must(t, err)
	if !r.Success {
		t.Fatalf("creating the value: %v", r)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	retries, timeouts := make([]int, n), make([]int, n)
	began := time.Now()
	for i := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each increment also writes the client's own count of its
			// increments, "cI": after a TimedOutException, whose outcome is
			// unknown (the cluster may give up on a contended round, as 2.1
			// did), a SERIAL read of it tells whether the increment was
			// applied, since no other client writes it.
			ledger := []byte("c" + strconv.Itoa(i))
			v := 0
			for done := 0; done < iterations; {
				r, err := cs[i].Cas(ctx, key, "Standard1",
					[]*cassandra19.Column{casColumn("v", strconv.Itoa(v))},
					[]*cassandra19.Column{casColumn("v", strconv.Itoa(v+1)), casColumn(string(ledger), strconv.Itoa(done+1))},
					cassandra19.ConsistencyLevel_SERIAL, cassandra19.ConsistencyLevel_QUORUM)
				var te *cassandra19.TimedOutException
				if errors.As(err, &te) {
					timeouts[i]++
					got, err := cs[i].GetSlice(ctx, key, &cassandra19.ColumnParent{ColumnFamily: "Standard1"},
						&cassandra19.SlicePredicate{ColumnNames: [][]byte{ledger, []byte("v")}}, cassandra19.ConsistencyLevel_SERIAL)
					if errors.As(err, &te) {
						continue
					}
					if err != nil {
						errs[i] = err
						return
					}
					for _, c := range got {
						switch string(c.Column.Name) {
						case "v":
							v, err = strconv.Atoi(string(c.Column.Value))
						case string(ledger):
							done, err = strconv.Atoi(string(c.Column.Value))
						}
						if err != nil {
							errs[i] = err
							return
						}
					}
					continue
				}
				if err != nil {
					errs[i] = err
					return
				}
				if r.Success {
					v++
					done++
					continue
				}
				retries[i]++
				if len(r.CurrentValues) != 1 {
					errs[i] = fmt.Errorf("a failed cas returned %v", r.CurrentValues)
					return
				}
				if v, err = strconv.Atoi(string(r.CurrentValues[0].Value)); err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	took := time.Since(began)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	got, err := cs[0].Get(ctx, key, &cassandra19.ColumnPath{ColumnFamily: "Standard1", Column: []byte("v")}, cassandra19.ConsistencyLevel_SERIAL)
	must(t, err)
	if want := strconv.Itoa(n * iterations); string(got.Column.Value) != want {
		t.Fatalf("after %d clients × %d increments the value is %s, want %s", n, iterations, got.Column.Value, want)
	}
	total, timedOut := 0, 0
	for i := range retries {
		total += retries[i]
		timedOut += timeouts[i]
	}
	t.Logf("backend %s: %d clients × %d increments = %s in %v, %d failed rounds retried, %d timed out and settled by a SERIAL read",
		testenv.Backend(), n, iterations, got.Column.Value, took.Round(time.Millisecond), total, timedOut)
}
