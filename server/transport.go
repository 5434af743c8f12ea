package server

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"

	"github.com/apache/thrift/lib/go/thrift"
)

// limitError reports a length read off the wire that the server refuses.
// It names what was being read, the size claimed, and the bound it broke.
type limitError struct {
	what  string // "frame", "request", "list", "method name", ...
	size  int64  // what the client claimed (elements for containers, bytes otherwise)
	limit int64  // the bound broken
	left  bool   // the bound was the bytes left in the message rather than the maximum message size
}

func (e *limitError) Error() string {
	switch {
	case e.what == "request":
		// An unframed request states no length; it simply went on too long.
		return fmt.Sprintf("request exceeds the maximum message size of %d bytes", e.limit)
	case e.size < 0:
		return fmt.Sprintf("%s length %d is negative", e.what, e.size)
	case e.left:
		return fmt.Sprintf("%s length %d cannot fit in the %d bytes left in the message", e.what, e.size, e.limit)
	default:
		return fmt.Sprintf("%s length %d exceeds the maximum message size of %d bytes", e.what, e.size, e.limit)
	}
}

// errFrameEnd is returned when a message reads past the end of its frame.
var errFrameEnd = errors.New("message runs past the end of its frame")

// transport is the thrift.TTransport (and TRichTransport) a connection's
// protocols read and write through. Reads come from a buffered reader over
// the socket and are confined to the current message: a framed message may
// not read past its frame, an unframed one may not read more than the
// maximum message size. Writes are buffered until Flush; in framed mode the
// whole reply is held and written as one frame.
//
// The first read and write errors are kept, so the connection loop can tell
// whether the input stream is still in step after a failed request.
type transport struct {
	nc         net.Conn
	br         *inbuf
	maxMessage int64
	framed     bool

	// remaining is how many more bytes the current message may read.
	remaining int64
	readErr   error
	bytesRead int64 // over the connection's life, headers included

	bw *bufio.Writer // unframed replies
	// frame holds a framed reply behind 4 bytes reserved for its length,
	// so that it leaves in a single write.
	frame        []byte
	writeErr     error
	bytesWritten int64
	// flushedThisRequest reports that reply bytes of the current request
	// reached the socket, after which nothing can be taken back.
	flushedThisRequest bool
}

var _ thrift.TRichTransport = (*transport)(nil)

func newTransport(nc net.Conn, maxMessage int64) *transport {
	t := &transport{nc: nc, maxMessage: maxMessage}
	t.br = newInbuf(countingReader{nc, &t.bytesRead}, 16<<10)
	t.bw = bufio.NewWriterSize(countingWriter{t, nc}, 16<<10)
	t.resetFrame()
	return t
}

type countingReader struct {
	r io.Reader
	n *int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

// countingWriter counts bytes written to the socket and notes that the
// current reply has started to leave.
type countingWriter struct {
	t *transport
	w io.Writer
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.t.bytesWritten += int64(n)
	if n > 0 {
		c.t.flushedThisRequest = true
	}
	return n, err
}

// startRequest prepares for the next message: it reads the frame header in
// framed mode (the first byte has already arrived) and resets the per-request
// budget and error state.
func (t *transport) startRequest() error {
	t.readErr, t.writeErr = nil, nil
	t.flushedThisRequest = false
	t.resetFrame()
	t.br.shrink()
	if !t.framed {
		t.remaining = t.maxMessage
		return nil
	}
	var hdr [4]byte
	if _, err := io.ReadFull(t.br, hdr[:]); err != nil {
		return err
	}
	size := int64(int32(binary.BigEndian.Uint32(hdr[:])))
	if size < 0 || size > t.maxMessage {
		return &limitError{what: "frame", size: size, limit: t.maxMessage}
	}
	t.remaining = size
	return nil
}

// finishRequest skips what the processor left unread of the frame, so the
// next frame starts where the client put it.
func (t *transport) finishRequest() error {
	if !t.framed || t.remaining == 0 {
		return nil
	}
	n, err := t.br.Discard(int(t.remaining))
	t.remaining -= int64(n)
	return err
}

// peek returns the next n bytes of the current message without consuming
// them, or an error if the message has fewer than n bytes left.
func (t *transport) peek(n int) ([]byte, error) {
	if int64(n) > t.remaining {
		return nil, t.overrun()
	}
	return t.br.Peek(n)
}

// ensure waits until the next n bytes of the current message have arrived,
// so that a length claimed by the client is backed by data before anything
// is sized from it. It fails like a read would if the message has fewer
// than n bytes left or the bytes do not come.
func (t *transport) ensure(n int64) error {
	if n > t.remaining {
		return t.noteRead(t.overrun())
	}
	if n <= int64(t.br.Buffered()) {
		return nil
	}
	_, err := t.br.Peek(int(n))
	return t.noteRead(err)
}

// overrun is the error for reading beyond the current message's budget.
func (t *transport) overrun() error {
	if t.framed {
		return errFrameEnd
	}
	// The size is a lower bound: the request had at least one byte too many.
	return &limitError{what: "request", size: t.maxMessage + 1, limit: t.maxMessage}
}

func (t *transport) noteRead(err error) error {
	if err != nil && t.readErr == nil {
		t.readErr = err
	}
	return err
}

// buffered returns the next n bytes of the current message if they have
// arrived, without consuming them or waiting; ok is false otherwise. The
// slice is valid until the next read.
func (t *transport) buffered(n int) (b []byte, ok bool) {
	if int64(n) > t.remaining || t.br.Buffered() < n {
		return nil, false
	}
	return t.br.buf[t.br.r : t.br.r+n], true
}

// consume moves past n bytes that buffered returned.
func (t *transport) consume(n int) {
	t.br.r += n
	t.remaining -= int64(n)
}

func (t *transport) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if t.remaining <= 0 {
		return 0, t.noteRead(t.overrun())
	}
	if int64(len(p)) > t.remaining {
		p = p[:t.remaining]
	}
	n, err := t.br.Read(p)
	t.remaining -= int64(n)
	return n, t.noteRead(err)
}

func (t *transport) ReadByte() (byte, error) {
	if t.remaining <= 0 {
		return 0, t.noteRead(t.overrun())
	}
	b, err := t.br.ReadByte()
	if err == nil {
		t.remaining--
	}
	return b, t.noteRead(err)
}

func (t *transport) noteWrite(err error) error {
	if err != nil && t.writeErr == nil {
		t.writeErr = err
	}
	return err
}

// frameHeader is the room reserved at the start of a framed reply.
const frameHeader = 4

func (t *transport) resetFrame() {
	// A very large reply should not pin its buffer for the connection's life.
	if cap(t.frame) > 1<<20 {
		t.frame = nil
	}
	t.frame = append(t.frame[:0], 0, 0, 0, 0)
}

func (t *transport) Write(p []byte) (int, error) {
	if t.framed {
		t.frame = append(t.frame, p...)
		return len(p), nil
	}
	n, err := t.bw.Write(p)
	return n, t.noteWrite(err)
}

func (t *transport) WriteByte(b byte) error {
	if t.framed {
		t.frame = append(t.frame, b)
		return nil
	}
	return t.noteWrite(t.bw.WriteByte(b))
}

func (t *transport) WriteString(s string) (int, error) {
	if t.framed {
		t.frame = append(t.frame, s...)
		return len(s), nil
	}
	n, err := t.bw.WriteString(s)
	return n, t.noteWrite(err)
}

// Flush sends the reply written so far; in framed mode it becomes one frame.
func (t *transport) Flush(context.Context) error {
	if !t.framed {
		return t.noteWrite(t.bw.Flush())
	}
	size := len(t.frame) - frameHeader
	if size <= 0 {
		return nil
	}
	if size > math.MaxInt32 {
		return t.noteWrite(fmt.Errorf("reply of %d bytes does not fit in a frame", size))
	}
	binary.BigEndian.PutUint32(t.frame, uint32(size))
	_, err := countingWriter{t, t.nc}.Write(t.frame)
	t.resetFrame()
	return t.noteWrite(err)
}

// discardReply drops reply bytes not yet sent. It reports false when part
// of the reply has already reached the socket.
func (t *transport) discardReply() bool {
	if t.flushedThisRequest {
		return false
	}
	t.resetFrame()
	t.bw.Reset(countingWriter{t, t.nc})
	return true
}

// RemainingBytes reports the bytes left in the current message: the rest of
// the frame, or the rest of the size budget of an unframed request.
func (t *transport) RemainingBytes() uint64 {
	return uint64(max(t.remaining, 0))
}

// The connection loop, not the protocols, opens and closes the socket.

func (t *transport) Open() error  { return nil }
func (t *transport) IsOpen() bool { return true }
func (t *transport) Close() error { return nil }
