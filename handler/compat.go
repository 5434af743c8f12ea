package handler

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
)

// Cassandra 0.6's Java processor decoded arguments differently from the Go
// code generated from the same IDL, in ways a client can see:
//
//   - A field with an IDL default (every consistency_level, SliceRange.count
//     and .reversed, KeyRange.count, get_range_slice's start_key,
//     finish_key and row_count) took its default when omitted; Go rejects
//     the call.
//   - A required number without a default (timestamps, keys_per_split) was
//     not checked and became 0; Go rejects the call.
//   - A required struct, string, binary or container that is missing, and a
//     consistency_level that is not one of the enum's values, were answered
//     with PROTOCOL_ERROR "Required field '<name>' was not present! ...";
//     Go's text differs, and Go passes unknown enum values through.
//
// argsReader restores 0.6's behaviour by watching the generated decoder
// read the arguments: it supplies omitted defaults and zeros as if they had
// been sent, and turns the other cases into 0.6's message, which
// compatFunction sends instead of the generated reply.

// ftype is the shape of a field's value, as far as decoding needs it.
type ftype struct {
	t    thrift.TType
	st   *sspec // STRUCT
	elem *ftype // LIST and SET elements, MAP values (keys are never structs here)
}

// field is one field of a struct. def is the value 0.6 used when the field
// was omitted (an IDL default, or 0 for a required number); nil means
// omitting a required field is a protocol error.
type field struct {
	id       int16
	name     string
	typ      ftype
	required bool
	def      any
	enum     bool // a ConsistencyLevel: unknown values count as absent
}

// sspec is a struct as 0.6's generated Java saw it; name is its Java name.
type sspec struct {
	name   string
	fields []field
}

func (s *sspec) field(id int16) *field {
	if s == nil {
		return nil
	}
	for i := range s.fields {
		if s.fields[i].id == id {
			return &s.fields[i]
		}
	}
	return nil
}

var (
	tString = ftype{t: thrift.STRING}
	tI32    = ftype{t: thrift.I32}
	tI64    = ftype{t: thrift.I64}
	tBool   = ftype{t: thrift.BOOL}

	columnSpec      = &sspec{"Column", []field{{1, "name", tString, true, nil, false}, {2, "value", tString, true, nil, false}, {3, "timestamp", tI64, true, int64(0), false}}}
	superColumnSpec = &sspec{"SuperColumn", []field{{1, "name", tString, true, nil, false}, {2, "columns", ftype{t: thrift.LIST, elem: &ftype{t: thrift.STRUCT, st: columnSpec}}, true, nil, false}}}
	coscSpec        = &sspec{"ColumnOrSuperColumn", []field{{1, "column", ftype{t: thrift.STRUCT, st: columnSpec}, false, nil, false}, {2, "super_column", ftype{t: thrift.STRUCT, st: superColumnSpec}, false, nil, false}}}
	parentSpec      = &sspec{"ColumnParent", []field{{3, "column_family", tString, true, nil, false}}}
	pathSpec        = &sspec{"ColumnPath", []field{{3, "column_family", tString, true, nil, false}}}
	sliceRangeSpec  = &sspec{"SliceRange", []field{{1, "start", tString, true, nil, false}, {2, "finish", tString, true, nil, false}, {3, "reversed", tBool, true, false, false}, {4, "count", tI32, true, int32(100), false}}}
	predicateSpec   = &sspec{"SlicePredicate", []field{{2, "slice_range", ftype{t: thrift.STRUCT, st: sliceRangeSpec}, false, nil, false}}}
	keyRangeSpec    = &sspec{"KeyRange", []field{{5, "count", tI32, true, int32(100), false}}}
	deletionSpec    = &sspec{"Deletion", []field{{1, "timestamp", tI64, true, int64(0), false}, {3, "predicate", ftype{t: thrift.STRUCT, st: predicateSpec}, false, nil, false}}}
	mutationSpec    = &sspec{"Mutation", []field{{1, "column_or_supercolumn", ftype{t: thrift.STRUCT, st: coscSpec}, false, nil, false}, {2, "deletion", ftype{t: thrift.STRUCT, st: deletionSpec}, false, nil, false}}}
	authSpec        = &sspec{"AuthenticationRequest", []field{{1, "credentials", ftype{t: thrift.MAP, elem: &tString}, true, nil, false}}}
)

func req(id int16, name string, t ftype) field { return field{id, name, t, true, nil, false} }
func st(s *sspec) ftype                        { return ftype{t: thrift.STRUCT, st: s} }
func cl(id int16) field {
	return field{id, "consistency_level", tI32, true, int32(cassandra.ConsistencyLevel_ONE), true}
}

// argSpecs are the argument structs of every method.
var argSpecs = map[string]*sspec{
	"login":            {"login_args", []field{req(1, "keyspace", tString), req(2, "auth_request", st(authSpec))}},
	"get":              {"get_args", []field{req(1, "keyspace", tString), req(2, "key", tString), req(3, "column_path", st(pathSpec)), cl(4)}},
	"get_slice":        {"get_slice_args", []field{req(1, "keyspace", tString), req(2, "key", tString), req(3, "column_parent", st(parentSpec)), req(4, "predicate", st(predicateSpec)), cl(5)}},
	"multiget":         {"multiget_args", []field{req(1, "keyspace", tString), req(2, "keys", ftype{t: thrift.LIST, elem: &tString}), req(3, "column_path", st(pathSpec)), cl(4)}},
	"multiget_slice":   {"multiget_slice_args", []field{req(1, "keyspace", tString), req(2, "keys", ftype{t: thrift.LIST, elem: &tString}), req(3, "column_parent", st(parentSpec)), req(4, "predicate", st(predicateSpec)), cl(5)}},
	"get_count":        {"get_count_args", []field{req(1, "keyspace", tString), req(2, "key", tString), req(3, "column_parent", st(parentSpec)), cl(4)}},
	"get_range_slice":  {"get_range_slice_args", []field{req(1, "keyspace", tString), req(2, "column_parent", st(parentSpec)), req(3, "predicate", st(predicateSpec)), {4, "start_key", tString, true, "", false}, {5, "finish_key", tString, true, "", false}, {6, "row_count", tI32, true, int32(100), false}, cl(7)}},
	"get_range_slices": {"get_range_slices_args", []field{req(1, "keyspace", tString), req(2, "column_parent", st(parentSpec)), req(3, "predicate", st(predicateSpec)), req(4, "range", st(keyRangeSpec)), cl(5)}},
	"insert":           {"insert_args", []field{req(1, "keyspace", tString), req(2, "key", tString), req(3, "column_path", st(pathSpec)), req(4, "value", tString), {5, "timestamp", tI64, true, int64(0), false}, cl(6)}},
	"batch_insert":     {"batch_insert_args", []field{req(1, "keyspace", tString), req(2, "key", tString), req(3, "cfmap", ftype{t: thrift.MAP, elem: &ftype{t: thrift.LIST, elem: &ftype{t: thrift.STRUCT, st: coscSpec}}}), cl(4)}},
	// remove's consistency_level is not marked required: an unknown value
	// reaches the handler (0.6 then failed inside; thriftd answers IRE).
	"remove":                   {"remove_args", []field{req(1, "keyspace", tString), req(2, "key", tString), req(3, "column_path", st(pathSpec)), {4, "timestamp", tI64, true, int64(0), false}, {5, "consistency_level", tI32, false, int32(cassandra.ConsistencyLevel_ONE), false}}},
	"batch_mutate":             {"batch_mutate_args", []field{req(1, "keyspace", tString), req(2, "mutation_map", ftype{t: thrift.MAP, elem: &ftype{t: thrift.MAP, elem: &ftype{t: thrift.LIST, elem: &ftype{t: thrift.STRUCT, st: mutationSpec}}}}), cl(3)}},
	"get_string_property":      {"get_string_property_args", []field{req(1, "property", tString)}},
	"get_string_list_property": {"get_string_list_property_args", []field{req(1, "property", tString)}},
	"describe_ring":            {"describe_ring_args", []field{req(1, "keyspace", tString)}},
	"describe_keyspace":        {"describe_keyspace_args", []field{req(1, "keyspace", tString)}},
	"describe_splits":          {"describe_splits_args", []field{req(1, "start_token", tString), req(2, "end_token", tString), {3, "keys_per_split", tI32, true, int32(0), false}}},
}

// frame is one struct or container being decoded.
type frame struct {
	spec    *sspec // struct frames; nil for an unknown struct
	elem    *ftype // container frames: the element (or map value) shape
	isStruc bool
	cur     *field  // the field being read
	seen    bitset  // fields read with the right type
	invalid bitset  // enum fields read with a value the enum lacks
	stopped bool    // the struct's STOP has been read
	pending []field // omitted fields still to be supplied before STOP

	// Container frames: LIST, SET or MAP; the wire types of keys and
	// values (both the element type for lists and sets); how many values
	// the container holds (keys and values counted apart for maps), and
	// how many of them have begun to be read.
	kind   thrift.TType
	kt, vt thrift.TType
	items  int
	began  int
}

// argsReader is a TProtocol that decodes one method's arguments as 0.6 did.
type argsReader struct {
	thrift.TProtocol
	root    *sspec
	stack   []frame // reused across structs: one frame per nesting level
	inject  *field  // the supplied field whose value is read next
	problem string  // 0.6's PROTOCOL_ERROR message, once one is found
}

var errRequired = errors.New("required field missing")

func (r *argsReader) top() *frame {
	if len(r.stack) == 0 {
		return nil
	}
	return &r.stack[len(r.stack)-1]
}

// bitset holds field ids; every id in the IDL is below 64.
type bitset uint64

func (b bitset) has(id int16) bool { return id >= 0 && id < 64 && b&(1<<id) != 0 }
func (b *bitset) add(id int16) {
	if id >= 0 && id < 64 {
		*b |= 1 << id
	}
}

// childShape is the shape of the next struct or container to be read.
func (r *argsReader) childShape() *ftype {
	f := r.top()
	switch {
	case f == nil:
		return &ftype{t: thrift.STRUCT, st: r.root}
	case f.isStruc:
		if f.cur != nil {
			return &f.cur.typ
		}
	case f.elem != nil:
		return f.elem
	}
	return nil
}

// value notes that a value starts to be read: one more element of the
// container being read, if it is one.
func (r *argsReader) value() {
	if f := r.top(); f != nil && !f.isStruc {
		f.began++
	}
}

func (r *argsReader) ReadStructBegin(ctx context.Context) (string, error) {
	r.value()
	name, err := r.TProtocol.ReadStructBegin(ctx)
	fr := frame{isStruc: true}
	if sh := r.childShape(); sh != nil && sh.t == thrift.STRUCT {
		fr.spec = sh.st
	}
	r.stack = append(r.stack, fr)
	return name, err
}

func (r *argsReader) ReadStructEnd(ctx context.Context) error {
	r.pop()
	return r.TProtocol.ReadStructEnd(ctx)
}

func (r *argsReader) pop() {
	if len(r.stack) > 0 {
		r.stack = r.stack[:len(r.stack)-1]
	}
}

func (r *argsReader) pushContainer(kind, kt, vt thrift.TType, items int) {
	fr := frame{kind: kind, kt: kt, vt: vt, items: items}
	if sh := r.childShape(); sh != nil {
		fr.elem = sh.elem
	}
	r.stack = append(r.stack, fr)
}

func (r *argsReader) ReadListBegin(ctx context.Context) (thrift.TType, int, error) {
	r.value()
	t, n, err := r.TProtocol.ReadListBegin(ctx)
	r.pushContainer(thrift.LIST, t, t, n)
	return t, n, err
}

func (r *argsReader) ReadListEnd(ctx context.Context) error {
	r.pop()
	return r.TProtocol.ReadListEnd(ctx)
}

func (r *argsReader) ReadSetBegin(ctx context.Context) (thrift.TType, int, error) {
	r.value()
	t, n, err := r.TProtocol.ReadSetBegin(ctx)
	r.pushContainer(thrift.SET, t, t, n)
	return t, n, err
}

func (r *argsReader) ReadSetEnd(ctx context.Context) error {
	r.pop()
	return r.TProtocol.ReadSetEnd(ctx)
}

func (r *argsReader) ReadMapBegin(ctx context.Context) (thrift.TType, thrift.TType, int, error) {
	r.value()
	k, v, n, err := r.TProtocol.ReadMapBegin(ctx)
	r.pushContainer(thrift.MAP, k, v, 2*n)
	return k, v, n, err
}

func (r *argsReader) ReadMapEnd(ctx context.Context) error {
	r.pop()
	return r.TProtocol.ReadMapEnd(ctx)
}

func (r *argsReader) ReadFieldBegin(ctx context.Context) (string, thrift.TType, int16, error) {
	f := r.top()
	if f == nil || !f.isStruc || f.spec == nil {
		return r.TProtocol.ReadFieldBegin(ctx)
	}
	if f.stopped && len(f.pending) == 0 {
		return "", thrift.STOP, 0, nil
	}
	if !f.stopped {
		name, t, id, err := r.TProtocol.ReadFieldBegin(ctx)
		if err != nil || t != thrift.STOP {
			f.cur = f.spec.field(id)
			if f.cur != nil && f.cur.typ.t == t {
				f.seen.add(id)
			} else {
				f.cur = nil
			}
			return name, t, id, err
		}
		// The end of the struct: find what 0.6 would have defaulted or
		// refused, in declaration order (Java's validate()).
		f.stopped = true
		for _, fd := range f.spec.fields {
			if f.seen.has(fd.id) && !f.invalid.has(fd.id) {
				continue
			}
			switch {
			case f.invalid.has(fd.id) && fd.required && r.problem == "":
				r.problem = fmt.Sprintf("Required field '%s' was not present! Struct: %s", fd.name, f.spec.name)
			case f.invalid.has(fd.id):
			case fd.def != nil:
				f.pending = append(f.pending, fd)
			case fd.required && r.problem == "":
				r.problem = fmt.Sprintf("Required field '%s' was not present! Struct: %s", fd.name, f.spec.name)
			}
		}
		if r.problem != "" {
			return name, t, id, errRequired
		}
		if len(f.pending) == 0 {
			return name, t, id, nil
		}
	}
	// Supply the next omitted field as if the client had sent it.
	fd := f.pending[0]
	f.pending = f.pending[1:]
	r.inject = &fd
	f.cur = nil
	return fd.name, fd.typ.t, fd.id, nil
}

// Once the supplied fields are read, the STOP read earlier ends the struct.
func (r *argsReader) ReadFieldEnd(ctx context.Context) error {
	if r.inject != nil {
		r.inject = nil
		return nil
	}
	return r.TProtocol.ReadFieldEnd(ctx)
}

func (r *argsReader) supplied() (any, bool) {
	if r.inject == nil {
		return nil, false
	}
	return r.inject.def, true
}

func (r *argsReader) ReadI32(ctx context.Context) (int32, error) {
	r.value()
	if v, ok := r.supplied(); ok {
		return v.(int32), nil
	}
	v, err := r.TProtocol.ReadI32(ctx)
	if f := r.top(); err == nil && f != nil && f.isStruc && f.cur != nil && f.cur.enum {
		if v < int32(cassandra.ConsistencyLevel_ZERO) || v > int32(cassandra.ConsistencyLevel_ANY) {
			f.invalid.add(f.cur.id) // Java decoded an unknown value as null
		}
	}
	return v, err
}

func (r *argsReader) ReadI64(ctx context.Context) (int64, error) {
	r.value()
	if v, ok := r.supplied(); ok {
		return v.(int64), nil
	}
	return r.TProtocol.ReadI64(ctx)
}

func (r *argsReader) ReadBool(ctx context.Context) (bool, error) {
	r.value()
	if v, ok := r.supplied(); ok {
		return v.(bool), nil
	}
	return r.TProtocol.ReadBool(ctx)
}

func (r *argsReader) ReadString(ctx context.Context) (string, error) {
	r.value()
	if v, ok := r.supplied(); ok {
		return v.(string), nil
	}
	return r.TProtocol.ReadString(ctx)
}

// The remaining value reads only need counting. ReadByte is left out: no
// argument of the IDL holds a byte, so the generated decoder never calls
// it (a field of another wire type is skipped, through Skip).

func (r *argsReader) ReadI16(ctx context.Context) (int16, error) {
	r.value()
	return r.TProtocol.ReadI16(ctx)
}

func (r *argsReader) ReadDouble(ctx context.Context) (float64, error) {
	r.value()
	return r.TProtocol.ReadDouble(ctx)
}

func (r *argsReader) ReadBinary(ctx context.Context) ([]byte, error) {
	r.value()
	return r.TProtocol.ReadBinary(ctx)
}

// Skip reads a whole value the generated code does not want, past the
// watch of argsReader: its parts are no business of the frames.
func (r *argsReader) Skip(ctx context.Context, t thrift.TType) error {
	r.value()
	return r.TProtocol.Skip(ctx, t)
}

// drain reads what is left of the arguments once a refused field has
// stopped the generated decoder inside a nested struct, so that the next
// request on the connection starts where the client put it (the decoder
// returns at once, leaving every enclosing struct and container unread).
// It ends each open struct and container from the innermost out: the rest
// of a struct's fields and the rest of a container's values are skipped
// by their wire types, through the connection's protocol and so within
// its size limits and timeouts. An error means the stream cannot be put
// back in step; the protocol has recorded it for the connection.
func (r *argsReader) drain(ctx context.Context) error {
	in := r.TProtocol
	for child := false; len(r.stack) > 0; child = true {
		f := r.top()
		var err error
		if f.isStruc {
			err = drainStruct(ctx, in, f.stopped, child)
		} else {
			err = drainContainer(ctx, in, f)
		}
		if err != nil {
			return err
		}
		r.pop()
	}
	return nil
}

// drainStruct reads the rest of a struct: the end of the field whose value
// was the last frame drained (when child is set), the fields left before
// its STOP unless stopped, and its end.
func drainStruct(ctx context.Context, in thrift.TProtocol, stopped, child bool) error {
	if !stopped {
		if child {
			if err := in.ReadFieldEnd(ctx); err != nil {
				return err
			}
		}
		for {
			_, t, _, err := in.ReadFieldBegin(ctx)
			if err != nil {
				return err
			}
			if t == thrift.STOP {
				break
			}
			if err := in.Skip(ctx, t); err != nil {
				return err
			}
			if err := in.ReadFieldEnd(ctx); err != nil {
				return err
			}
		}
	}
	return in.ReadStructEnd(ctx)
}

// drainContainer skips the values of a container not yet begun, then
// ends it. The value being read when decoding stopped was the frame
// drained before it.
func drainContainer(ctx context.Context, in thrift.TProtocol, f *frame) error {
	for i := f.began; i < f.items; i++ {
		t := f.vt
		if f.kind == thrift.MAP && i%2 == 0 {
			t = f.kt
		}
		if err := in.Skip(ctx, t); err != nil {
			return err
		}
	}
	switch f.kind {
	case thrift.MAP:
		return in.ReadMapEnd(ctx)
	case thrift.SET:
		return in.ReadSetEnd(ctx)
	}
	return in.ReadListEnd(ctx)
}

// replyGate drops the reply the generated function writes for arguments
// argsReader refused, so compatFunction can send 0.6's instead.
type replyGate struct {
	thrift.TProtocol
	r *argsReader
}

func (g *replyGate) closed() bool { return g.r.problem != "" }

func (g *replyGate) WriteMessageBegin(ctx context.Context, name string, t thrift.TMessageType, seq int32) error {
	if g.closed() {
		return nil
	}
	return g.TProtocol.WriteMessageBegin(ctx, name, t, seq)
}

func (g *replyGate) WriteMessageEnd(ctx context.Context) error {
	if g.closed() {
		return nil
	}
	return g.TProtocol.WriteMessageEnd(ctx)
}

func (g *replyGate) WriteStructBegin(ctx context.Context, name string) error {
	if g.closed() {
		return nil
	}
	return g.TProtocol.WriteStructBegin(ctx, name)
}

func (g *replyGate) WriteStructEnd(ctx context.Context) error {
	if g.closed() {
		return nil
	}
	return g.TProtocol.WriteStructEnd(ctx)
}

func (g *replyGate) WriteFieldBegin(ctx context.Context, name string, t thrift.TType, id int16) error {
	if g.closed() {
		return nil
	}
	return g.TProtocol.WriteFieldBegin(ctx, name, t, id)
}

func (g *replyGate) WriteFieldEnd(ctx context.Context) error {
	if g.closed() {
		return nil
	}
	return g.TProtocol.WriteFieldEnd(ctx)
}

func (g *replyGate) WriteFieldStop(ctx context.Context) error {
	if g.closed() {
		return nil
	}
	return g.TProtocol.WriteFieldStop(ctx)
}

func (g *replyGate) WriteString(ctx context.Context, v string) error {
	if g.closed() {
		return nil
	}
	return g.TProtocol.WriteString(ctx, v)
}

func (g *replyGate) WriteI32(ctx context.Context, v int32) error {
	if g.closed() {
		return nil
	}
	return g.TProtocol.WriteI32(ctx, v)
}

func (g *replyGate) Flush(ctx context.Context) error {
	if g.closed() {
		return nil
	}
	return g.TProtocol.Flush(ctx)
}

// compatFunction runs a generated processor function with 0.6's argument
// decoding. It belongs to one connection, whose calls come one at a time,
// so its reader and gate are reused from call to call.
type compatFunction struct {
	name string
	spec *sspec
	fn   thrift.TProcessorFunction
	r    argsReader
	gate replyGate
}

func (c *compatFunction) Process(ctx context.Context, seq int32, in, out thrift.TProtocol) (bool, thrift.TException) {
	r := &c.r
	*r = argsReader{TProtocol: in, root: c.spec, stack: r.stack[:0]}
	c.gate = replyGate{TProtocol: out, r: r}
	ok, err := c.fn.Process(ctx, seq, r, &c.gate)
	if r.problem == "" {
		return ok, err
	}
	// A failed drain leaves the connection out of step; the connection's
	// protocol has recorded the read error, and the server closes it after
	// this reply.
	_ = r.drain(ctx)
	x := thrift.NewTApplicationException(thrift.PROTOCOL_ERROR, r.problem)
	if werr := out.WriteMessageBegin(ctx, c.name, thrift.EXCEPTION, seq); werr != nil {
		return false, thrift.WrapTException(werr)
	}
	if werr := x.Write(ctx, out); werr != nil {
		return false, thrift.WrapTException(werr)
	}
	if werr := out.WriteMessageEnd(ctx); werr != nil {
		return false, thrift.WrapTException(werr)
	}
	if werr := out.Flush(ctx); werr != nil {
		return false, thrift.WrapTException(werr)
	}
	return false, x
}

// Processor returns the Thrift processor for one client connection: the
// generated one, on a fresh Connection, with 0.6's argument decoding.
func (s *Service) Processor() thrift.TProcessor {
	return s.processor(s.Connection())
}

// ProcessorFrom is Processor for a client at peer of the server at host.
func (s *Service) ProcessorFrom(peer, host string) thrift.TProcessor {
	return s.processor(s.ConnectionFrom(peer, host))
}

func (s *Service) processor(h cassandra.Cassandra) thrift.TProcessor {
	p := cassandra.NewCassandraProcessor(h)
	for name, fn := range p.ProcessorMap() {
		if spec := argSpecs[name]; spec != nil {
			fn = &compatFunction{name: name, spec: spec, fn: fn}
		}
		p.AddToProcessorMap(name, s.metrics.Wrap(name, fn))
	}
	return p
}
