package handler19

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// batch_mutate's arguments, decoded by hand. A 100-column batch_mutate
// spent a quarter of its server CPU in the generated decoder, which
// allocates a Mutation, a ColumnOrSuperColumn, a Column, a timestamp and
// two byte slices for every column. mutationDecoder reads the same fields
// in the same order, through the same protocol (so the server's limits on
// lengths and counts still apply), and returns what the generated code
// returns, errors included, word for word; it only takes the structs of
// a mutation list from shared slabs and, when the
// protocol can append a binary to a buffer, copies names and values into
// shared chunks. Fields it does not read itself (deletions, super and
// counter columns) go to the generated ReadField methods.

// binaryAppender is implemented by an input protocol that can read a
// binary into a caller's buffer (the server's does): it appends the next
// binary to dst and returns the extended slice.
type binaryAppender interface {
	AppendBinary(ctx context.Context, dst []byte) ([]byte, error)
}

// mutationDecoder holds the slabs of one call's arguments.
type mutationDecoder struct {
	in    thrift.TProtocol
	app   binaryAppender // nil: each binary is read on its own
	buf   []byte         // the current chunk of names and values
	muts  []cassandra19.Mutation
	coscs []cassandra19.ColumnOrSuperColumn
	cols  []cassandra19.Column
	ts    []int64
}

// bytesChunk is the size of the chunks names and values are copied into; a
// chunk with less than an eighth of it left is replaced by a fresh one.
const bytesChunk = 8 << 10

func newMutationDecoder(in thrift.TProtocol) *mutationDecoder {
	d := &mutationDecoder{in: in}
	d.app, _ = in.(binaryAppender)
	return d
}

// take returns a zeroed element from the end of a slab, starting a new
// slab when it is full, each twice the last up to slabMax. Slabs grow as
// elements are decoded, not from a list's count, so that a count which the
// bytes behind it do not fill costs no more than the generated code's
// preallocation; elements already handed out stay where they are.
func take[T any](slab *[]T) *T {
	if len(*slab) == cap(*slab) {
		*slab = make([]T, 0, min(max(16, 2*cap(*slab)), slabMax))
	}
	*slab = (*slab)[:len(*slab)+1]
	return &(*slab)[len(*slab)-1]
}

// slabMax bounds the elements of one slab.
const slabMax = 1024

// binary reads a binary as ReadBinary does, into the current chunk when it
// can. Each result is capped at its length, so an append to one never
// overwrites the next.
func (d *mutationDecoder) binary(ctx context.Context) ([]byte, error) {
	if d.app == nil {
		return d.in.ReadBinary(ctx)
	}
	if cap(d.buf)-len(d.buf) < bytesChunk/8 {
		d.buf = make([]byte, 0, bytesChunk)
	}
	n := len(d.buf)
	b, err := d.app.AppendBinary(ctx, d.buf)
	if err != nil {
		return nil, err
	}
	// A body larger than the room left moved the chunk to a new array;
	// the copies handed out before keep the old one.
	d.buf = b
	return b[n:len(b):len(b)], nil
}

// readArgs decodes batch_mutate's (and atomic_batch_mutate's) arguments
// as CassandraBatchMutateArgs.Read does.
func (d *mutationDecoder) readArgs(ctx context.Context, p *cassandra19.CassandraBatchMutateArgs) error {
	iprot := d.in
	if _, err := iprot.ReadStructBegin(ctx); err != nil {
		return thrift.PrependError(fmt.Sprintf("%T read error: ", p), err)
	}
	issetMutationMap, issetConsistencyLevel := false, false
	for {
		_, fieldTypeId, fieldId, err := iprot.ReadFieldBegin(ctx)
		if err != nil {
			return thrift.PrependError(fmt.Sprintf("%T field %d read error: ", p, fieldId), err)
		}
		if fieldTypeId == thrift.STOP {
			break
		}
		switch {
		case fieldId == 1 && fieldTypeId == thrift.MAP:
			if err := d.readMutationMap(ctx, p); err != nil {
				return err
			}
			issetMutationMap = true
		case fieldId == 2 && fieldTypeId == thrift.I32:
			if err := p.ReadField2(ctx, iprot); err != nil {
				return err
			}
			issetConsistencyLevel = true
		default:
			if err := iprot.Skip(ctx, fieldTypeId); err != nil {
				return err
			}
		}
		if err := iprot.ReadFieldEnd(ctx); err != nil {
			return err
		}
	}
	if err := iprot.ReadStructEnd(ctx); err != nil {
		return thrift.PrependError(fmt.Sprintf("%T read struct end error: ", p), err)
	}
	if !issetMutationMap {
		return thrift.NewTProtocolExceptionWithType(thrift.INVALID_DATA, fmt.Errorf("Required field MutationMap is not set"))
	}
	if !issetConsistencyLevel {
		return thrift.NewTProtocolExceptionWithType(thrift.INVALID_DATA, fmt.Errorf("Required field ConsistencyLevel is not set"))
	}
	return nil
}

// readMutationMap is CassandraBatchMutateArgs.ReadField1.
func (d *mutationDecoder) readMutationMap(ctx context.Context, p *cassandra19.CassandraBatchMutateArgs) error {
	iprot := d.in
	_, _, size, err := iprot.ReadMapBegin(ctx)
	if err != nil {
		return thrift.PrependError("error reading map begin: ", err)
	}
	p.MutationMap = make(map[string]map[string][]*cassandra19.Mutation, size)
	for range size {
		key, err := iprot.ReadString(ctx)
		if err != nil {
			return thrift.PrependError("error reading field 0: ", err)
		}
		_, _, size, err := iprot.ReadMapBegin(ctx)
		if err != nil {
			return thrift.PrependError("error reading map begin: ", err)
		}
		families := make(map[string][]*cassandra19.Mutation, size)
		for range size {
			cf, err := iprot.ReadString(ctx)
			if err != nil {
				return thrift.PrependError("error reading field 0: ", err)
			}
			_, size, err := iprot.ReadListBegin(ctx)
			if err != nil {
				return thrift.PrependError("error reading list begin: ", err)
			}
			list := make([]*cassandra19.Mutation, 0, size)
			for range size {
				m := take(&d.muts)
				if err := d.readMutation(ctx, m); err != nil {
					return thrift.PrependError(fmt.Sprintf("%T error reading struct: ", m), err)
				}
				list = append(list, m)
			}
			if err := iprot.ReadListEnd(ctx); err != nil {
				return thrift.PrependError("error reading list end: ", err)
			}
			families[cf] = list
		}
		if err := iprot.ReadMapEnd(ctx); err != nil {
			return thrift.PrependError("error reading map end: ", err)
		}
		p.MutationMap[key] = families
	}
	if err := iprot.ReadMapEnd(ctx); err != nil {
		return thrift.PrependError("error reading map end: ", err)
	}
	return nil
}

// readMutation is Mutation.Read.
func (d *mutationDecoder) readMutation(ctx context.Context, p *cassandra19.Mutation) error {
	iprot := d.in
	if _, err := iprot.ReadStructBegin(ctx); err != nil {
		return thrift.PrependError(fmt.Sprintf("%T read error: ", p), err)
	}
	for {
		_, fieldTypeId, fieldId, err := iprot.ReadFieldBegin(ctx)
		if err != nil {
			return thrift.PrependError(fmt.Sprintf("%T field %d read error: ", p, fieldId), err)
		}
		if fieldTypeId == thrift.STOP {
			break
		}
		switch {
		case fieldId == 1 && fieldTypeId == thrift.STRUCT:
			p.ColumnOrSupercolumn = take(&d.coscs)
			if err := d.readCOSC(ctx, p.ColumnOrSupercolumn); err != nil {
				return thrift.PrependError(fmt.Sprintf("%T error reading struct: ", p.ColumnOrSupercolumn), err)
			}
		case fieldId == 2 && fieldTypeId == thrift.STRUCT:
			if err := p.ReadField2(ctx, iprot); err != nil {
				return err
			}
		default:
			if err := iprot.Skip(ctx, fieldTypeId); err != nil {
				return err
			}
		}
		if err := iprot.ReadFieldEnd(ctx); err != nil {
			return err
		}
	}
	if err := iprot.ReadStructEnd(ctx); err != nil {
		return thrift.PrependError(fmt.Sprintf("%T read struct end error: ", p), err)
	}
	return nil
}

// readCOSC is ColumnOrSuperColumn.Read.
func (d *mutationDecoder) readCOSC(ctx context.Context, p *cassandra19.ColumnOrSuperColumn) error {
	iprot := d.in
	if _, err := iprot.ReadStructBegin(ctx); err != nil {
		return thrift.PrependError(fmt.Sprintf("%T read error: ", p), err)
	}
	for {
		_, fieldTypeId, fieldId, err := iprot.ReadFieldBegin(ctx)
		if err != nil {
			return thrift.PrependError(fmt.Sprintf("%T field %d read error: ", p, fieldId), err)
		}
		if fieldTypeId == thrift.STOP {
			break
		}
		switch {
		case fieldTypeId != thrift.STRUCT || fieldId < 1 || fieldId > 4:
			err = iprot.Skip(ctx, fieldTypeId)
		case fieldId == 1:
			p.Column = take(&d.cols)
			if err = d.readColumn(ctx, p.Column); err != nil {
				err = thrift.PrependError(fmt.Sprintf("%T error reading struct: ", p.Column), err)
			}
		case fieldId == 2:
			err = p.ReadField2(ctx, iprot)
		case fieldId == 3:
			err = p.ReadField3(ctx, iprot)
		default:
			err = p.ReadField4(ctx, iprot)
		}
		if err != nil {
			return err
		}
		if err := iprot.ReadFieldEnd(ctx); err != nil {
			return err
		}
	}
	if err := iprot.ReadStructEnd(ctx); err != nil {
		return thrift.PrependError(fmt.Sprintf("%T read struct end error: ", p), err)
	}
	return nil
}

// readColumn is Column.Read.
func (d *mutationDecoder) readColumn(ctx context.Context, p *cassandra19.Column) error {
	iprot := d.in
	if _, err := iprot.ReadStructBegin(ctx); err != nil {
		return thrift.PrependError(fmt.Sprintf("%T read error: ", p), err)
	}
	issetName := false
	for {
		_, fieldTypeId, fieldId, err := iprot.ReadFieldBegin(ctx)
		if err != nil {
			return thrift.PrependError(fmt.Sprintf("%T field %d read error: ", p, fieldId), err)
		}
		if fieldTypeId == thrift.STOP {
			break
		}
		switch {
		case fieldId == 1 && fieldTypeId == thrift.STRING:
			v, err := d.binary(ctx)
			if err != nil {
				return thrift.PrependError("error reading field 1: ", err)
			}
			p.Name = v
			issetName = true
		case fieldId == 2 && fieldTypeId == thrift.STRING:
			v, err := d.binary(ctx)
			if err != nil {
				return thrift.PrependError("error reading field 2: ", err)
			}
			p.Value = v
		case fieldId == 3 && fieldTypeId == thrift.I64:
			v, err := iprot.ReadI64(ctx)
			if err != nil {
				return thrift.PrependError("error reading field 3: ", err)
			}
			ts := take(&d.ts)
			*ts = v
			p.Timestamp = ts
		case fieldId == 4 && fieldTypeId == thrift.I32:
			if err := p.ReadField4(ctx, iprot); err != nil {
				return err
			}
		default:
			if err := iprot.Skip(ctx, fieldTypeId); err != nil {
				return err
			}
		}
		if err := iprot.ReadFieldEnd(ctx); err != nil {
			return err
		}
	}
	if err := iprot.ReadStructEnd(ctx); err != nil {
		return thrift.PrependError(fmt.Sprintf("%T read struct end error: ", p), err)
	}
	if !issetName {
		return thrift.NewTProtocolExceptionWithType(thrift.INVALID_DATA, fmt.Errorf("Required field Name is not set"))
	}
	return nil
}

// mutateFunction is the processor function of batch_mutate or
// atomic_batch_mutate: the generated one's replies and exceptions, with
// the arguments read by mutationDecoder. The generated functions' server
// connectivity check is left out, as thriftd turns it off
// (thrift.ServerConnectivityCheckInterval = 0).
type mutateFunction struct {
	name string
	call func(ctx context.Context, mutations map[string]map[string][]*cassandra19.Mutation, cl cassandra19.ConsistencyLevel) error
	// result wraps the call's declared exceptions (all nil on success) in
	// the method's result struct.
	result func(ire *cassandra19.InvalidRequestException, ue *cassandra19.UnavailableException, te *cassandra19.TimedOutException) thrift.TStruct
}

func batchMutateResult(ire *cassandra19.InvalidRequestException, ue *cassandra19.UnavailableException, te *cassandra19.TimedOutException) thrift.TStruct {
	return &cassandra19.CassandraBatchMutateResult{Ire: ire, Ue: ue, Te: te}
}

func atomicBatchMutateResult(ire *cassandra19.InvalidRequestException, ue *cassandra19.UnavailableException, te *cassandra19.TimedOutException) thrift.TStruct {
	return &cassandra19.CassandraAtomicBatchMutateResult{Ire: ire, Ue: ue, Te: te}
}

func (f *mutateFunction) Process(ctx context.Context, seqId int32, iprot, oprot thrift.TProtocol) (bool, thrift.TException) {
	args := cassandra19.CassandraBatchMutateArgs{}
	if err := newMutationDecoder(iprot).readArgs(ctx, &args); err != nil {
		iprot.ReadMessageEnd(ctx)
		x := thrift.NewTApplicationException(thrift.PROTOCOL_ERROR, err.Error())
		oprot.WriteMessageBegin(ctx, f.name, thrift.EXCEPTION, seqId)
		x.Write(ctx, oprot)
		oprot.WriteMessageEnd(ctx)
		oprot.Flush(ctx)
		return false, thrift.WrapTException(err)
	}
	iprot.ReadMessageEnd(ctx)

	var result thrift.TStruct
	var err thrift.TException
	if err2 := f.call(ctx, args.MutationMap, args.ConsistencyLevel); err2 != nil {
		err = thrift.WrapTException(err2)
		switch v := err2.(type) {
		case *cassandra19.InvalidRequestException:
			result = f.result(v, nil, nil)
		case *cassandra19.UnavailableException:
			result = f.result(nil, v, nil)
		case *cassandra19.TimedOutException:
			result = f.result(nil, nil, v)
		default:
			if errors.Is(err2, thrift.ErrAbandonRequest) {
				return false, thrift.WrapTException(err2)
			}
			x := thrift.NewTApplicationException(thrift.INTERNAL_ERROR, "Internal error processing "+f.name+": "+err2.Error())
			if werr := f.write(ctx, oprot, seqId, thrift.EXCEPTION, x); werr != nil {
				return false, thrift.WrapTException(werr)
			}
			return true, err
		}
	} else {
		result = f.result(nil, nil, nil)
	}
	if werr := f.write(ctx, oprot, seqId, thrift.REPLY, result); werr != nil {
		return false, thrift.WrapTException(werr)
	}
	return true, err
}

// write sends one message holding s, returning the first error.
func (f *mutateFunction) write(ctx context.Context, oprot thrift.TProtocol, seqId int32, t thrift.TMessageType, s thrift.TStruct) error {
	werr := oprot.WriteMessageBegin(ctx, f.name, t, seqId)
	if err := s.Write(ctx, oprot); werr == nil {
		werr = err
	}
	if err := oprot.WriteMessageEnd(ctx); werr == nil {
		werr = err
	}
	if err := oprot.Flush(ctx); werr == nil {
		werr = err
	}
	return werr
}
