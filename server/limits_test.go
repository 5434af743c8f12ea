package server

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"
)

// writeSmallest writes the shortest value of type t that the protocol can
// encode.
func writeSmallest(ctx context.Context, p thrift.TProtocol, t thrift.TType) error {
	switch t {
	case thrift.BOOL:
		return p.WriteBool(ctx, false)
	case thrift.BYTE:
		return p.WriteByte(ctx, 0)
	case thrift.I16:
		return p.WriteI16(ctx, 0)
	case thrift.I32:
		return p.WriteI32(ctx, 0)
	case thrift.I64:
		return p.WriteI64(ctx, 0)
	case thrift.DOUBLE:
		return p.WriteDouble(ctx, 0)
	case thrift.STRING:
		return p.WriteString(ctx, "")
	case thrift.STRUCT:
		p.WriteStructBegin(ctx, "s")
		p.WriteFieldStop(ctx)
		return p.WriteStructEnd(ctx)
	case thrift.MAP:
		p.WriteMapBegin(ctx, thrift.STRING, thrift.STRING, 0)
		return p.WriteMapEnd(ctx)
	case thrift.SET:
		p.WriteSetBegin(ctx, thrift.I32, 0)
		return p.WriteSetEnd(ctx)
	case thrift.LIST:
		p.WriteListBegin(ctx, thrift.I32, 0)
		return p.WriteListEnd(ctx)
	}
	panic("no such type")
}

// minWireSize never exceeds what the library actually writes for the
// smallest value of a type (or a valid message would be refused), and for
// the binary protocol it is exact (so the bound is as tight as it can be).
func TestMinWireSizeMatchesLibrary(t *testing.T) {
	types := []thrift.TType{thrift.BOOL, thrift.BYTE, thrift.I16, thrift.I32, thrift.I64, thrift.DOUBLE,
		thrift.STRING, thrift.STRUCT, thrift.MAP, thrift.SET, thrift.LIST}
	ctx := context.Background()
	for _, compact := range []bool{false, true} {
		cp := &checkedProtocol{compact: compact}
		for _, typ := range types {
			buf := thrift.NewTMemoryBuffer()
			var p thrift.TProtocol = thrift.NewTBinaryProtocolConf(buf, nil)
			if compact {
				p = thrift.NewTCompactProtocolConf(buf, nil)
				// A compact struct's stop byte needs an enclosing field context.
				p.WriteStructBegin(ctx, "outer")
			}
			start := buf.Len()
			if err := writeSmallest(ctx, p, typ); err != nil {
				t.Fatal(err)
			}
			got, min := int64(buf.Len()-start), cp.minWireSize(typ)
			if min > got || (!compact && min != got) {
				t.Errorf("compact=%v %v: minWireSize %d, library writes %d", compact, typ, min, got)
			}
		}
	}
}

// A listener that fails some accepts before handing over connections.
type flakyListener struct {
	net.Listener
	mu    sync.Mutex
	fails []error
}

func (l *flakyListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	if len(l.fails) > 0 {
		err := l.fails[0]
		l.fails = l.fails[1:]
		l.mu.Unlock()
		return nil, err
	}
	l.mu.Unlock()
	return l.Listener.Accept()
}

type tempErr struct{}

func (tempErr) Error() string   { return "accept: too many open files" }
func (tempErr) Timeout() bool   { return false }
func (tempErr) Temporary() bool { return true }

// Temporary accept errors are retried; any other ends Serve with it.
func TestAcceptErrors(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs := &logSink{}
	s := New(Options{Logger: slogFor(logs)}, newTestProcessor(&hooks{}))
	l := &flakyListener{Listener: inner, fails: []error{tempErr{}, tempErr{}, tempErr{}}}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()

	client, _, _ := dialClient(t, inner.Addr().String(), clientKinds[0])
	if _, err := client.DescribeVersion(context.Background()); err != nil {
		t.Fatalf("after temporary accept errors: %v", err)
	}
	logs.waitRecord(t, map[string]string{"msg": "accept failed, retrying", "level": "WARN"})

	fatal := errors.New("listener broke")
	l.mu.Lock()
	l.fails = []error{fatal}
	l.mu.Unlock()
	// Wake the accept loop with a connection attempt so it meets the error.
	if nc, err := net.DialTimeout("tcp", inner.Addr().String(), time.Second); err == nil {
		defer nc.Close()
	}
	select {
	case err := <-served:
		if !errors.Is(err, fatal) {
			t.Fatalf("Serve returned %v, want %v", err, fatal)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Serve kept going after a permanent accept error")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}
