package server

// framing is how a connection's messages are delimited and encoded. It is
// detected once, from the first bytes of the first message, and holds for
// every later message on the connection in both directions.
type framing struct {
	framed  bool // each message is preceded by a 4-byte big-endian length
	compact bool // TCompactProtocol rather than TBinaryProtocol
	// unversioned records that the first message used the old binary header
	// (name length first, no version word); replies are versioned anyway.
	unversioned bool
}

func (f framing) String() string {
	s := "unframed"
	if f.framed {
		s = "framed"
	}
	switch {
	case f.compact:
		s += " compact"
	case f.unversioned:
		s += " binary (unversioned header)"
	default:
		s += " binary"
	}
	return s
}

const (
	binaryVersionHi = 0x80 // first byte of a versioned binary header (VERSION_1 = 0x8001....)
	binaryVersionLo = 0x01
	compactID       = 0x82 // first byte of every compact-protocol message
)

// sniffFraming detects the framing from the start of the first message.
// peek must return exactly n bytes, blocking until they arrive, or an error.
// Every valid message is longer than the six bytes examined, so peeking never
// waits for bytes a well-formed client would not send.
//
// An unframed message starts with its header: 0x80 0x01 (versioned binary),
// 0x82 (compact), or a 4-byte name length (old binary header). A frame
// starts with a 4-byte length whose first byte is never 0x80 or 0x82 for an
// acceptable size, and the message header follows at byte 4; a 0x00 there is
// the high byte of an old header's name length, whereas an unframed old
// header has the method name's first character there.
func sniffFraming(peek func(n int) ([]byte, error)) (framing, error) {
	b, err := peek(2)
	if err != nil {
		return framing{}, err
	}
	switch {
	case b[0] == binaryVersionHi && b[1] == binaryVersionLo:
		return framing{}, nil
	case b[0] == compactID:
		return framing{compact: true}, nil
	}
	b, err = peek(6)
	if err != nil {
		return framing{}, err
	}
	switch {
	case b[4] == binaryVersionHi && b[5] == binaryVersionLo:
		return framing{framed: true}, nil
	case b[4] == compactID:
		return framing{framed: true, compact: true}, nil
	case b[4] == 0x00:
		return framing{framed: true, unversioned: true}, nil
	default:
		return framing{unversioned: true}, nil
	}
}
