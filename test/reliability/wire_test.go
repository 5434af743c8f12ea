package reliability

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"
)

// Hand-built TBinaryProtocol bytes, for requests no generated client would
// send.

func i32(v int32) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// header is a strict binary CALL header.
func header(name string, seq int32) []byte {
	return cat([]byte{0x80, 0x01, 0x00, byte(thrift.CALL)}, i32(int32(len(name))), []byte(name), i32(seq))
}

func frame(msg []byte) []byte { return cat(i32(int32(len(msg))), msg) }

// field is a field header.
func field(t thrift.TType, id int16) []byte { return []byte{byte(t), byte(id >> 8), byte(id)} }

// str is a string field.
func str(id int16, s string) []byte {
	return cat(field(thrift.STRING, id), i32(int32(len(s))), []byte(s))
}

var stop = []byte{thrift.STOP}

// encode is the binary encoding of a whole call as the generated client
// writes it.
func encode(t testing.TB, name string, seq int32, args thrift.TStruct) []byte {
	t.Helper()
	buf := thrift.NewTMemoryBuffer()
	p := thrift.NewTBinaryProtocolConf(buf, nil)
	if err := p.WriteMessageBegin(ctx, name, thrift.CALL, seq); err != nil {
		t.Fatal(err)
	}
	if err := args.Write(ctx, p); err != nil {
		t.Fatal(err)
	}
	p.WriteMessageEnd(ctx)
	p.Flush(ctx)
	return buf.Bytes()
}

// rawConn is a TCP connection the test writes bytes to directly.
type rawConn struct {
	net.Conn
}

func dialRaw(t testing.TB, addr string) *rawConn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawConn{nc}
}

// peer is how thriftd names this connection in its log.
func (c *rawConn) peer() string { return c.LocalAddr().String() }

// outcome is what the server did with a request: answered with a
// TApplicationException, or closed the connection (perhaps after one).
type outcome struct {
	exception thrift.TApplicationException
	closed    bool
	reply     bool // a REPLY message came back
}

// await reads what the server sends back within d: one message (decoded
// as a TApplicationException when it is one), then whether the connection
// is closed.
func (c *rawConn) await(t testing.TB, framed bool, d time.Duration) outcome {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	defer c.SetReadDeadline(time.Time{})
	var out outcome
	var trans thrift.TTransport = thrift.NewStreamTransportR(c.Conn)
	if framed {
		trans = thrift.NewTFramedTransportConf(trans, &thrift.TConfiguration{})
	}
	p := thrift.NewTBinaryProtocolConf(trans, &thrift.TConfiguration{})
	_, typ, _, err := p.ReadMessageBegin(ctx)
	if err != nil {
		if isClosed(err) {
			out.closed = true
			return out
		}
		t.Fatalf("reading the reply: %v", err)
	}
	switch typ {
	case thrift.EXCEPTION:
		x := thrift.NewTApplicationException(0, "")
		if err := x.Read(ctx, p); err != nil {
			t.Fatalf("reading a TApplicationException: %v", err)
		}
		out.exception = x
	case thrift.REPLY:
		out.reply = true
		return out
	default:
		t.Fatalf("reply of message type %d", typ)
	}
	// Is the connection closed after the exception? Give it a moment.
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	var b [1]byte
	if _, err := c.Read(b[:]); err != nil && isClosed(err) {
		out.closed = true
	}
	return out
}

func isClosed(err error) bool {
	var te thrift.TTransportException
	if errors.As(err, &te) && te.TypeId() == thrift.END_OF_FILE {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || isReset(err)
}

func isReset(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && !oe.Timeout()
}
