package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/dht"
	"github.com/thriftd/thriftd/gen-go/cassandra"
)

var ctx = context.Background()

type client struct {
	*cassandra.CassandraClient
	t thrift.TTransport
}

func dial(p *process) (*client, error) {
	cfg := &thrift.TConfiguration{ConnectTimeout: 10 * time.Second, SocketTimeout: 10 * time.Minute}
	t := thrift.NewTFramedTransportConf(thrift.NewTSocketConf(p.addr, cfg), cfg)
	if err := t.Open(); err != nil {
		return nil, err
	}
	return &client{cassandra.NewCassandraClientFactory(t, thrift.NewTBinaryProtocolFactoryConf(cfg)), t}, nil
}

func columnName(i int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(i)) }

// wideRow writes width columns into one row of Standard1 (BytesType, so
// 8-byte big-endian names sort numerically), then reads 100 columns from
// the middle of it 2000 times on one connection.
func wideRow(srv *process, width int) error {
	c, err := dial(srv)
	if err != nil {
		return err
	}
	defer c.t.Close()
	const key, perCall = "wide-row", 10_000
	value := []byte("0123456789abcdef")
	t0 := time.Now()
	for done := 0; done < width; {
		var ms []*cassandra.Mutation
		for ; len(ms) < perCall && done < width; done++ {
			ms = append(ms, &cassandra.Mutation{ColumnOrSupercolumn: &cassandra.ColumnOrSuperColumn{
				Column: &cassandra.Column{Name: columnName(done), Value: value, Timestamp: 1}}})
		}
		m := map[string]map[string][]*cassandra.Mutation{key: {"Standard1": ms}}
		if err := c.BatchMutate(ctx, "Keyspace1", m, cassandra.ConsistencyLevel_ONE); err != nil {
			return fmt.Errorf("loading the wide row: %w", err)
		}
	}
	load := time.Since(t0)
	const reads = 2000
	lat := make([]time.Duration, 0, reads)
	parent := &cassandra.ColumnParent{ColumnFamily: "Standard1"}
	for i := range reads {
		from := width/2 + (i*7919)%(width/4)
		pred := &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: columnName(from), Finish: []byte{}, Count: 100}}
		t := time.Now()
		r, err := c.GetSlice(ctx, "Keyspace1", key, parent, pred, cassandra.ConsistencyLevel_ONE)
		lat = append(lat, time.Since(t))
		if err != nil {
			return err
		}
		if len(r) != min(100, width-from) || binary.BigEndian.Uint64(r[0].Column.Name) != uint64(from) {
			return fmt.Errorf("wide row slice from %d: %d columns", from, len(r))
		}
	}
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / 1e6 }
	fmt.Printf("\nwide row: %d columns written in %v (batch_mutate, %d per call); get_slice of 100 columns from the middle, one connection, %d reads: p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
		width, load.Round(time.Millisecond), perCall, reads, pct(0.5), pct(0.99), float64(lat[len(lat)-1])/1e6)
	return nil
}

// loadAndReadBack loads o.loadColumns columns, 100 per row, into a fresh
// thriftd with 8 connections, watching its resident memory, then reads
// every row back on one connection and checks each has its 100 columns.
func loadAndReadBack(o *options, dir string) error {
	srv, err := startThriftd(o.thriftd, o.config, dir)
	if err != nil {
		return err
	}
	defer srv.stop()
	rows := max(o.loadColumns/100, 8)
	var peakRSS int64
	var mu sync.Mutex
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				rss, _ := srv.memory()
				mu.Lock()
				peakRSS = max(peakRSS, rss)
				mu.Unlock()
			}
		}
	}()
	t0 := time.Now()
	s, err := stress(o.stress, srv, "-o", "batch", "-c", "100", "-n", strconv.Itoa(rows), "-t", "8", "-S", strconv.Itoa(o.loadValueSize), "-now", "-random-values")
	if err != nil {
		close(stop)
		return err
	}
	load := time.Since(t0)
	_, hwmLoad := srv.memory()
	raw := int64(rows) * 100 * int64(o.loadValueSize)
	fmt.Printf("load: %d rows × 100 columns of %d-byte random values (%.2f GB of values) in %v: %.0f columns/s, %.1f MB/s of values; batch_mutate p99 %.2f ms; on disk %.2f GB\n",
		rows, o.loadValueSize, float64(raw)/1e9, load.Round(time.Second), float64(rows*100)/load.Seconds(), float64(raw)/1e6/load.Seconds(), s.P99Ms, float64(dirSize(dir))/1e9)
	fmt.Printf("thriftd peak RSS while loading: %.0f MB (VmHWM)\n", float64(hwmLoad)/(1<<20))

	t0 = time.Now()
	got, cols, err := readBack(srv, 100, max(1, (4<<20)/(100*(o.loadValueSize+20))))
	if err != nil {
		close(stop)
		return err
	}
	back := time.Since(t0)
	close(stop)
	<-sampled
	_, hwm := srv.memory()
	fmt.Printf("read back: %d rows, %d columns in %v (get_range_slices, one connection): %.1f MB/s of values\n",
		got, cols, back.Round(time.Second), float64(cols)*float64(o.loadValueSize)/1e6/back.Seconds())
	fmt.Printf("thriftd peak RSS over load and read back: %.0f MB (VmHWM; sampled VmRSS peak %.0f MB)\n", float64(hwm)/(1<<20), float64(peakRSS)/(1<<20))
	if got != rows || cols != int64(rows)*100 {
		return fmt.Errorf("read back %d rows and %d columns, want %d and %d", got, cols, rows, rows*100)
	}
	fmt.Fprintln(os.Stderr, "read back complete")
	return nil
}

// readBack walks the whole ring of Standard1 in pages of page rows, each
// row with up to width columns, and counts rows and columns.
func readBack(srv *process, width, page int) (rows int, cols int64, err error) {
	c, err := dial(srv)
	if err != nil {
		return 0, 0, err
	}
	defer c.t.Close()
	parent := &cassandra.ColumnParent{ColumnFamily: "Standard1"}
	pred := &cassandra.SlicePredicate{SliceRange: &cassandra.SliceRange{Start: []byte{}, Finish: []byte{}, Count: int32(width)}}
	// Token ranges: the start token is exclusive, so pages never repeat a row.
	part, err := c.DescribePartitioner(ctx)
	if err != nil {
		return 0, 0, err
	}
	if part != "org.apache.cassandra.dht.RandomPartitioner" {
		return 0, 0, fmt.Errorf("read back needs RandomPartitioner, the configuration has %s", part)
	}
	rp, err := dht.Lookup(part)
	if err != nil {
		return 0, 0, err
	}
	start, end := "0", "0"
	for {
		kr := &cassandra.KeyRange{StartToken: &start, EndToken: &end, Count: int32(page)}
		r, err := c.GetRangeSlices(ctx, "Keyspace1", parent, pred, kr, cassandra.ConsistencyLevel_ONE)
		if err != nil {
			return rows, cols, err
		}
		for _, ks := range r {
			rows++
			cols += int64(len(ks.Columns))
		}
		if len(r) < page {
			return rows, cols, nil
		}
		start = rp.TokenString(rp.Token(r[len(r)-1].Key))
	}
}
