package dialect

import (
	"encoding/binary"
	"errors"

	"github.com/apache/thrift/lib/go/thrift"

	"github.com/thriftd/thriftd/gen-go/cassandra"
	"github.com/thriftd/thriftd/gen-go/cassandra19"
)

// The method names of each interface, from the generated processors.
var (
	names06 = methodNames(cassandra.NewCassandraProcessor(nil).ProcessorMap())
	names19 = methodNames(cassandra19.NewCassandraProcessor(nil).ProcessorMap())
)

func methodNames(m map[string]thrift.TProcessorFunction) map[string]bool {
	out := make(map[string]bool, len(m))
	for name := range m {
		out[name] = true
	}
	return out
}

// ByName is the dialect a method name alone shows: the interface that has
// it, or Unknown for a name both have (or neither).
func ByName(method string) Dialect {
	switch in06, in19 := names06[method], names19[method]; {
	case in06 && !in19:
		return V06
	case in19 && !in06:
		return V19
	}
	return Unknown
}

// discriminator is the argument field whose wire type differs between the
// two interfaces in a method both have.
type discriminator struct {
	id       int16
	t06, t19 thrift.TType
}

// discriminators of the shared methods whose requests differ. Field 1 is a
// string in both dialects for get, get_slice, get_count, insert and remove
// (the keyspace, or the key), so those are told by field 2. The shared
// methods not listed send the same arguments in both.
var discriminators = map[string]discriminator{
	"login":            {1, thrift.STRING, thrift.STRUCT},
	"get":              {2, thrift.STRING, thrift.STRUCT},
	"get_slice":        {2, thrift.STRING, thrift.STRUCT},
	"get_count":        {2, thrift.STRING, thrift.STRUCT},
	"insert":           {2, thrift.STRING, thrift.STRUCT},
	"remove":           {2, thrift.STRING, thrift.STRUCT},
	"multiget_slice":   {1, thrift.STRING, thrift.LIST},
	"get_range_slices": {1, thrift.STRING, thrift.STRUCT},
	"batch_mutate":     {1, thrift.STRING, thrift.MAP},
	"describe_splits":  {3, thrift.I32, thrift.STRING},
}

// Classify is the dialect of one call: by its name when one interface alone
// has it, else by the wire type of its discriminating argument field, read
// through peek (server.Request.PeekArgs) from the binary-protocol bytes of
// the arguments without consuming them. It is Unknown when the arguments
// look alike in both dialects, lack the field, or cannot be read.
func Classify(method string, peek func(n int) ([]byte, error)) Dialect {
	if d := ByName(method); d != Unknown || !names06[method] {
		return d
	}
	disc, ok := discriminators[method]
	if !ok {
		return Unknown
	}
	t, err := fieldType(peek, disc.id)
	switch {
	case err != nil:
		return Unknown
	case t == disc.t06:
		return V06
	case t == disc.t19:
		return V19
	}
	return Unknown
}

// errMalformed ends a scan of bytes that are not a binary-protocol struct.
var errMalformed = errors.New("malformed arguments")

// maxDepth bounds the nesting a scan follows, as the decoder's own does.
const maxDepth = 64

// scanner walks a binary-protocol struct through peek, which returns the
// first n bytes of the arguments.
type scanner struct {
	peek func(n int) ([]byte, error)
	off  int
}

// bytes returns the next n bytes and moves past them.
func (s *scanner) bytes(n int) ([]byte, error) {
	if n < 0 {
		return nil, errMalformed
	}
	b, err := s.peek(s.off + n)
	if err != nil {
		return nil, err
	}
	out := b[s.off : s.off+n]
	s.off += n
	return out, nil
}

func (s *scanner) size() (int, error) {
	b, err := s.bytes(4)
	if err != nil {
		return 0, err
	}
	n := int32(binary.BigEndian.Uint32(b))
	if n < 0 {
		return 0, errMalformed
	}
	return int(n), nil
}

// fieldType returns the wire type of field id of the arguments struct, or
// STOP when the struct ends without it. Fields before it are skipped.
func fieldType(peek func(n int) ([]byte, error), id int16) (thrift.TType, error) {
	s := &scanner{peek: peek}
	for {
		b, err := s.bytes(1)
		if err != nil {
			return 0, err
		}
		t := thrift.TType(b[0])
		if t == thrift.STOP {
			return thrift.STOP, nil
		}
		if b, err = s.bytes(2); err != nil {
			return 0, err
		}
		if int16(binary.BigEndian.Uint16(b)) == id {
			return t, nil
		}
		if err := s.skip(t, 0); err != nil {
			return 0, err
		}
	}
}

// fixedSize is the encoded size of a value of a fixed-size type, or 0.
func fixedSize(t thrift.TType) int {
	switch t {
	case thrift.BOOL, thrift.BYTE:
		return 1
	case thrift.I16:
		return 2
	case thrift.I32:
		return 4
	case thrift.I64, thrift.DOUBLE:
		return 8
	}
	return 0
}

// skip moves past one value of type t.
func (s *scanner) skip(t thrift.TType, depth int) error {
	if depth > maxDepth {
		return errMalformed
	}
	if n := fixedSize(t); n > 0 {
		_, err := s.bytes(n)
		return err
	}
	switch t {
	case thrift.STRING:
		n, err := s.size()
		if err != nil {
			return err
		}
		_, err = s.bytes(n)
		return err
	case thrift.STRUCT:
		for {
			b, err := s.bytes(1)
			if err != nil {
				return err
			}
			ft := thrift.TType(b[0])
			if ft == thrift.STOP {
				return nil
			}
			if _, err := s.bytes(2); err != nil {
				return err
			}
			if err := s.skip(ft, depth+1); err != nil {
				return err
			}
		}
	case thrift.MAP:
		b, err := s.bytes(2)
		if err != nil {
			return err
		}
		n, err := s.size()
		if err != nil {
			return err
		}
		return s.skipN(n, depth, thrift.TType(b[0]), thrift.TType(b[1]))
	case thrift.LIST, thrift.SET:
		b, err := s.bytes(1)
		if err != nil {
			return err
		}
		n, err := s.size()
		if err != nil {
			return err
		}
		return s.skipN(n, depth, thrift.TType(b[0]))
	}
	return errMalformed
}

// skipN moves past n repetitions of the values of types (a map entry's key
// and value, or one element).
func (s *scanner) skipN(n, depth int, types ...thrift.TType) error {
	fixed := 0
	for _, t := range types {
		f := fixedSize(t)
		if f == 0 {
			fixed = 0
			break
		}
		fixed += f
	}
	if fixed > 0 {
		if n > (1<<31-1)/fixed {
			return errMalformed
		}
		_, err := s.bytes(n * fixed)
		return err
	}
	for i := 0; i < n; i++ {
		for _, t := range types {
			if err := s.skip(t, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}
