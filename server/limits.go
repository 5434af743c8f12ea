package server

import (
	"context"
	"encoding/binary"
	"io"
	"slices"

	"github.com/apache/thrift/lib/go/thrift"
)

// checkedProtocol is the input protocol of a connection. It guards the
// lengths that Thrift 0.17 would otherwise trust, and records the first
// error of any read that can fail on bad data, so that the connection loop
// knows (together with the transport's own record of I/O errors) whether
// the input stream is still in step.
//
// What the library already checks (via TConfiguration.MaxMessageSize, set
// to our maximum): string, binary and container lengths that are negative
// or above the maximum. What it does not, and this type adds:
//
//   - a container count must fit in the bytes left in the message, and the
//     smallest encoding of that many elements must have arrived. The
//     generated code runs make([]T, 0, count) and make(map[K]V, count)
//     straight from the header, so without this a 30-byte request could
//     make the server allocate hundreds of megabytes;
//   - the name length of an old unversioned binary header, which the library
//     reads without any check.
//
// A string or binary body within the maximum cannot over-read either: the
// transport confines reads to the current message, and the library grows its
// buffer only as bytes arrive.
type checkedProtocol struct {
	thrift.TProtocol
	t          *transport
	maxMessage int64
	compact    bool
	err        error // first error returned by any read of the current request
	// open is the structs and containers of the current request begun and
	// not yet ended (drain.go).
	open []argFrame
}

func (p *checkedProtocol) note(err error) error {
	if err != nil && p.err == nil {
		p.err = err
	}
	return err
}

// ReadMessageBegin refuses an unversioned header whose name cannot fit in
// the message before the library starts reading it.
func (p *checkedProtocol) ReadMessageBegin(ctx context.Context) (string, thrift.TMessageType, int32, error) {
	if !p.compact {
		if b, err := p.t.peek(4); err == nil {
			// A non-negative first word is an unversioned header's name length.
			if n := int64(int32(binary.BigEndian.Uint32(b))); n >= 0 {
				if err := p.checkLength("method name", n, p.t.remaining-4); err != nil {
					return "", 0, 0, p.note(err)
				}
			}
		}
	}
	p.open = p.open[:0]
	name, typ, seq, err := p.TProtocol.ReadMessageBegin(ctx)
	return name, typ, seq, p.note(err)
}

// checkLength checks a byte length against the maximum message size and the
// bytes left in the message.
func (p *checkedProtocol) checkLength(what string, n, left int64) error {
	if n > p.maxMessage {
		return &limitError{what: what, size: n, limit: p.maxMessage}
	}
	if n > left {
		return &limitError{what: what, size: n, limit: max(left, 0), left: true}
	}
	return nil
}

// checkCount checks a container's element count: each element takes at
// least minSize bytes on the wire, so count*minSize may not exceed what is
// left in the message, and those bytes must have arrived before the count
// is handed on. The generated code's preallocation is then paid for by data
// actually received, not by a bare header.
func (p *checkedProtocol) checkCount(what string, count int, minSize int64) error {
	n := int64(count)
	if n < 0 {
		return &limitError{what: what, size: n}
	}
	if n > p.maxMessage {
		return &limitError{what: what, size: n, limit: p.maxMessage}
	}
	need := n * minSize
	if left := p.t.remaining; need > left {
		return &limitError{what: what, size: n, limit: left, left: true}
	}
	return p.t.ensure(need)
}

// minWireSize is the fewest bytes one value of type t can take on the wire.
// Unknown types count as one byte; reading them fails later anyway.
func (p *checkedProtocol) minWireSize(t thrift.TType) int64 {
	if p.compact {
		// Compact varints, lengths and collection headers can be one byte;
		// only doubles are fixed.
		if t == thrift.DOUBLE {
			return 8
		}
		return 1
	}
	switch t {
	case thrift.I16:
		return 2
	case thrift.I32, thrift.STRING:
		return 4
	case thrift.I64, thrift.DOUBLE:
		return 8
	case thrift.LIST, thrift.SET:
		return 5
	case thrift.MAP:
		return 6
	default: // BOOL, BYTE, STRUCT (an empty struct is its stop byte)
		return 1
	}
}

func (p *checkedProtocol) ReadListBegin(ctx context.Context) (thrift.TType, int, error) {
	p.began()
	et, n, err := p.TProtocol.ReadListBegin(ctx)
	if err == nil {
		err = p.checkCount("list", n, p.minWireSize(et))
	}
	if err == nil {
		p.push(argFrame{container: thrift.LIST, vt: et, items: n})
	}
	return et, n, p.note(err)
}

func (p *checkedProtocol) ReadSetBegin(ctx context.Context) (thrift.TType, int, error) {
	p.began()
	et, n, err := p.TProtocol.ReadSetBegin(ctx)
	if err == nil {
		err = p.checkCount("set", n, p.minWireSize(et))
	}
	if err == nil {
		p.push(argFrame{container: thrift.SET, vt: et, items: n})
	}
	return et, n, p.note(err)
}

func (p *checkedProtocol) ReadMapBegin(ctx context.Context) (thrift.TType, thrift.TType, int, error) {
	p.began()
	kt, vt, n, err := p.TProtocol.ReadMapBegin(ctx)
	if err == nil {
		err = p.checkCount("map", n, p.minWireSize(kt)+p.minWireSize(vt))
	}
	if err == nil {
		p.push(argFrame{container: thrift.MAP, kt: kt, vt: vt, items: 2 * n})
	}
	return kt, vt, n, p.note(err)
}

// Skip must go through this type: the embedded protocol's Skip would call
// the unchecked methods.
func (p *checkedProtocol) Skip(ctx context.Context, t thrift.TType) error {
	return p.note(thrift.SkipDefaultDepth(ctx, p, t))
}

// The reads below can fail on bad data without the transport failing, so
// they record their errors too. Failures of the other reads come from the
// transport, which keeps its own.

func (p *checkedProtocol) ReadFieldBegin(ctx context.Context) (string, thrift.TType, int16, error) {
	name, t, id, err := p.readFieldBegin(ctx)
	if n := len(p.open); err == nil && t == thrift.STOP && n > 0 {
		p.open[n-1].stopped = true
	}
	return name, t, id, p.note(err)
}

// readFieldBegin reads a binary-protocol field header (its type, then the
// id unless the type is STOP) straight from the bytes already buffered, as
// the library would read it; a decoder reads several headers per column.
func (p *checkedProtocol) readFieldBegin(ctx context.Context) (string, thrift.TType, int16, error) {
	if !p.compact {
		if b, ok := p.t.buffered(3); ok {
			if t := thrift.TType(b[0]); t == thrift.STOP {
				p.t.consume(1)
				return "", t, 0, nil
			}
			p.t.consume(3)
			return "", thrift.TType(b[0]), int16(binary.BigEndian.Uint16(b[1:])), nil
		}
	}
	return p.TProtocol.ReadFieldBegin(ctx)
}

func (p *checkedProtocol) ReadString(ctx context.Context) (string, error) {
	p.began()
	if b, ok, err := p.readBody(ctx); ok {
		return string(b), err
	}
	v, err := p.TProtocol.ReadString(ctx)
	return v, p.note(err)
}

func (p *checkedProtocol) ReadBinary(ctx context.Context) ([]byte, error) {
	p.began()
	if b, ok, err := p.readBody(ctx); ok {
		return b, err
	}
	v, err := p.TProtocol.ReadBinary(ctx)
	return v, p.note(err)
}

// smallBody is the largest string or binary read into a buffer of its
// exact size before its bytes have arrived.
const smallBody = 4096

// readBody reads a binary-protocol string or binary into one buffer of its
// exact size. The library instead grows a bytes.Buffer from 512 bytes for
// every value, which was the largest allocation of a write-heavy load. It
// only does so when the body is small or already buffered, so a length
// claimed ahead of its bytes still costs no more memory than has arrived.
// ok is false when the caller should let the library read the value (the
// compact protocol, or a large body still in flight); the length has then
// not been consumed.
func (p *checkedProtocol) readBody(ctx context.Context) (b []byte, ok bool, err error) {
	n, ok, err := p.bodyLength(ctx)
	if !ok || err != nil {
		return nil, ok, err
	}
	b = make([]byte, n)
	if _, err := io.ReadFull(p.t, b); err != nil {
		return nil, true, p.note(thrift.NewTProtocolException(err))
	}
	return b, true, nil
}

// bodyLength reads the length of a binary-protocol string or binary whose
// body readBody may read itself; ok and err are readBody's.
func (p *checkedProtocol) bodyLength(ctx context.Context) (n int, ok bool, err error) {
	if p.compact {
		return 0, false, nil
	}
	head, err := p.t.peek(4)
	if err != nil {
		return 0, false, nil
	}
	l := int64(int32(binary.BigEndian.Uint32(head)))
	if l < 0 || l > p.t.remaining-4 || (l > smallBody && int(l) > p.t.br.Buffered()-4) {
		return 0, false, nil // the library reports bad lengths; big bodies grow as they arrive
	}
	if _, err := p.TProtocol.ReadI32(ctx); err != nil {
		return 0, true, p.note(err)
	}
	return int(l), true, nil
}

// AppendBinary reads a binary as ReadBinary does and appends its bytes to
// dst, returning the extended slice (a new array when dst's capacity is
// short, as append's). A decoder that reads many small binaries into
// shared chunks this way allocates once per chunk, not once per binary.
func (p *checkedProtocol) AppendBinary(ctx context.Context, dst []byte) ([]byte, error) {
	p.began()
	if n, ok, err := p.bodyLength(ctx); !ok {
		v, err := p.TProtocol.ReadBinary(ctx)
		return append(dst, v...), p.note(err)
	} else if err != nil {
		return dst, err
	} else {
		dst = slices.Grow(dst, n)
		b := dst[len(dst) : len(dst)+n]
		if _, err := io.ReadFull(p.t, b); err != nil {
			return dst, p.note(thrift.NewTProtocolException(err))
		}
		return dst[:len(dst)+n], nil
	}
}

// Request is implemented by the input protocol that a processor function
// receives. It lets a processor look at the arguments of the request before
// decoding them, which serving two interfaces on one port needs: the
// dialect of a call shows in the wire types of its argument fields.
type Request interface {
	// PeekArgs returns the next n bytes of the current request without
	// consuming them, waiting for them to arrive. It fails, without
	// disturbing the request, when the message has fewer than n bytes left.
	PeekArgs(n int) ([]byte, error)
	// Framed reports whether the connection uses framed transport.
	Framed() bool
	// Compact reports whether the connection uses the compact protocol
	// (whose bytes PeekArgs returns as they are).
	Compact() bool
}

var _ Request = (*checkedProtocol)(nil)

func (p *checkedProtocol) PeekArgs(n int) ([]byte, error) { return p.t.peek(n) }
func (p *checkedProtocol) Framed() bool                   { return p.t.framed }
func (p *checkedProtocol) Compact() bool                  { return p.compact }
