package server

import (
	"context"
	"encoding/binary"

	"github.com/apache/thrift/lib/go/thrift"
)

// A generated processor function stops decoding its arguments at the first
// error, which for a nested struct (a 19.x ColumnParent without its
// column_family, a Mutation inside batch_mutate's maps) comes after that
// struct's end but in the middle of every struct and container enclosing
// it. It then replies with an exception and returns. On a framed
// connection the transport discards the rest of the frame; on an unframed
// one the rest of the arguments would be read as the next request. So the
// input protocol keeps a small record of the structs and containers opened
// and not yet ended (argFrame), and after the processor returns the
// connection of an unframed request reads what is left of them
// (drainArgs), skipping by wire type within the usual size limits and
// timeouts. A processor that reads its arguments to the end leaves the
// record empty and nothing is read.

// argFrame is one struct or container of the arguments being decoded.
type argFrame struct {
	container thrift.TType // LIST, SET or MAP; STOP for a struct
	stopped   bool         // a struct whose STOP field has been read
	kt, vt    thrift.TType // a container's key (MAP) and value types
	items     int          // a container's values, keys and values counted apart for a MAP
	began     int          // values begun so far
}

// (ReadByte is not counted: go vet holds the name to io.ByteReader's
// signature, and neither interface has a container of bytes.)

// began notes that a value starts: an element of the innermost container,
// if that is where decoding is.
func (p *checkedProtocol) began() {
	if n := len(p.open); n > 0 && p.open[n-1].container != thrift.STOP {
		p.open[n-1].began++
	}
}

func (p *checkedProtocol) push(f argFrame) { p.open = append(p.open, f) }

func (p *checkedProtocol) pop() {
	if n := len(p.open); n > 0 {
		p.open = p.open[:n-1]
	}
}

func (p *checkedProtocol) ReadStructBegin(ctx context.Context) (string, error) {
	p.began()
	name, err := p.TProtocol.ReadStructBegin(ctx)
	if err == nil {
		p.push(argFrame{container: thrift.STOP})
	}
	return name, p.note(err)
}

func (p *checkedProtocol) ReadStructEnd(ctx context.Context) error {
	p.pop()
	return p.note(p.TProtocol.ReadStructEnd(ctx))
}

func (p *checkedProtocol) ReadListEnd(ctx context.Context) error {
	p.pop()
	return p.note(p.TProtocol.ReadListEnd(ctx))
}

func (p *checkedProtocol) ReadSetEnd(ctx context.Context) error {
	p.pop()
	return p.note(p.TProtocol.ReadSetEnd(ctx))
}

func (p *checkedProtocol) ReadMapEnd(ctx context.Context) error {
	p.pop()
	return p.note(p.TProtocol.ReadMapEnd(ctx))
}

func (p *checkedProtocol) ReadBool(ctx context.Context) (bool, error) {
	p.began()
	return p.TProtocol.ReadBool(ctx)
}

func (p *checkedProtocol) ReadI16(ctx context.Context) (int16, error) {
	p.began()
	return p.TProtocol.ReadI16(ctx)
}

// ReadI32 and ReadI64 read a binary-protocol number straight from the
// bytes already buffered when they have arrived, as the library would.
func (p *checkedProtocol) ReadI32(ctx context.Context) (int32, error) {
	p.began()
	if !p.compact {
		if b, ok := p.t.buffered(4); ok {
			p.t.consume(4)
			return int32(binary.BigEndian.Uint32(b)), nil
		}
	}
	return p.TProtocol.ReadI32(ctx)
}

func (p *checkedProtocol) ReadI64(ctx context.Context) (int64, error) {
	p.began()
	if !p.compact {
		if b, ok := p.t.buffered(8); ok {
			p.t.consume(8)
			return int64(binary.BigEndian.Uint64(b)), nil
		}
	}
	return p.TProtocol.ReadI64(ctx)
}

func (p *checkedProtocol) ReadDouble(ctx context.Context) (float64, error) {
	p.began()
	return p.TProtocol.ReadDouble(ctx)
}

// drainArgs reads what the processor left of the arguments' open structs
// and containers, innermost first, so that the next request starts where
// the client put it. An error means the stream cannot be put back in step;
// it has been recorded for the connection.
func (p *checkedProtocol) drainArgs(ctx context.Context) error {
	for child := false; len(p.open) > 0; child = true {
		f := p.open[len(p.open)-1]
		var err error
		if f.container == thrift.STOP {
			err = p.drainStruct(ctx, f.stopped, child)
		} else {
			err = p.drainContainer(ctx, f)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// drainStruct reads a struct's remaining fields (none once its STOP has
// been read) and its end; child says the field being read when decoding
// stopped was the frame drained before.
func (p *checkedProtocol) drainStruct(ctx context.Context, stopped, child bool) error {
	if !stopped {
		if child {
			if err := p.TProtocol.ReadFieldEnd(ctx); err != nil {
				return p.note(err)
			}
		}
		for {
			_, t, _, err := p.ReadFieldBegin(ctx)
			if err != nil {
				return err
			}
			if t == thrift.STOP {
				break
			}
			if err := p.Skip(ctx, t); err != nil {
				return err
			}
			if err := p.TProtocol.ReadFieldEnd(ctx); err != nil {
				return p.note(err)
			}
		}
	}
	return p.ReadStructEnd(ctx)
}

// drainContainer skips the values of a container not yet begun, then ends
// it.
func (p *checkedProtocol) drainContainer(ctx context.Context, f argFrame) error {
	for i := f.began; i < f.items; i++ {
		t := f.vt
		if f.container == thrift.MAP && i%2 == 0 {
			t = f.kt
		}
		// Skip's own reads would count as values begun; the loop counts.
		if err := p.Skip(ctx, t); err != nil {
			return err
		}
	}
	switch f.container {
	case thrift.MAP:
		return p.ReadMapEnd(ctx)
	case thrift.SET:
		return p.ReadSetEnd(ctx)
	}
	return p.ReadListEnd(ctx)
}
