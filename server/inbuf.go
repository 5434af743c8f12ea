package server

import "io"

// inbuf is a read buffer like bufio.Reader whose Peek can look further than
// its usual size: it grows to hold whatever must be seen before decoding
// continues, and shrinks back between requests. The server uses it to make
// a container's elements arrive before the generated code sizes a slice or
// map from the element count.
type inbuf struct {
	src  io.Reader
	size int // the normal capacity
	buf  []byte
	r, w int // unread bytes are buf[r:w]
}

func newInbuf(src io.Reader, size int) *inbuf {
	return &inbuf{src: src, size: size, buf: make([]byte, size)}
}

// Buffered is the number of bytes that can be read without blocking.
func (b *inbuf) Buffered() int { return b.w - b.r }

// fill blocks until at least n bytes are buffered or reading fails. The
// buffer grows only as bytes arrive (at most doubling), so a large n backed
// by no data costs no memory.
func (b *inbuf) fill(n int) error {
	for b.w-b.r < n {
		if b.w == len(b.buf) {
			b.makeRoom(n)
		}
		m, err := b.src.Read(b.buf[b.w:])
		b.w += m
		if err != nil {
			if b.w-b.r >= n {
				return nil
			}
			return err
		}
	}
	return nil
}

// makeRoom frees space after the unread bytes of a full buffer, sliding
// them to the front or, if they fill it, growing it towards n.
func (b *inbuf) makeRoom(n int) {
	unread := b.w - b.r
	buf := b.buf
	if unread == len(buf) {
		buf = make([]byte, min(2*len(buf), n))
	}
	copy(buf, b.buf[b.r:b.w])
	b.buf, b.r, b.w = buf, 0, unread
}

// Peek returns the next n bytes without consuming them, waiting for them if
// necessary. The slice is valid until the next read.
func (b *inbuf) Peek(n int) ([]byte, error) {
	if err := b.fill(n); err != nil {
		return nil, err
	}
	return b.buf[b.r : b.r+n], nil
}

func (b *inbuf) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if b.r == b.w {
		if len(p) >= len(b.buf) {
			// Nothing buffered and a large read: skip the copy.
			return b.src.Read(p)
		}
		b.r, b.w = 0, 0
		m, err := b.src.Read(b.buf)
		b.w = m
		if m == 0 {
			return 0, err
		}
	}
	n := copy(p, b.buf[b.r:b.w])
	b.r += n
	return n, nil
}

func (b *inbuf) ReadByte() (byte, error) {
	if err := b.fill(1); err != nil {
		return 0, err
	}
	c := b.buf[b.r]
	b.r++
	return c, nil
}

// Discard skips the next n bytes, reading them if necessary, and reports
// how many were skipped.
func (b *inbuf) Discard(n int) (int, error) {
	done := 0
	for done < n {
		if b.r == b.w {
			if err := b.fill(1); err != nil {
				return done, err
			}
		}
		k := min(n-done, b.w-b.r)
		b.r += k
		done += k
	}
	return done, nil
}

// shrink returns to the normal capacity once a large message has been
// consumed, so an idle connection does not keep a large buffer.
func (b *inbuf) shrink() {
	if len(b.buf) <= b.size || b.w-b.r > b.size {
		return
	}
	buf := make([]byte, b.size)
	b.w = copy(buf, b.buf[b.r:b.w])
	b.r = 0
	b.buf = buf
}
