package server

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"testing"
	"testing/iotest"
)

// Any mix of Peek, Read, ReadByte and Discard yields the source's bytes in
// order, whatever the source's read sizes.
func TestInbufPreservesStream(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for round := range 200 {
		src := make([]byte, rng.Intn(5000))
		rng.Read(src)
		var r io.Reader = bytes.NewReader(src)
		switch round % 3 {
		case 1:
			r = iotest.OneByteReader(r)
		case 2:
			r = iotest.HalfReader(r)
		}
		b := newInbuf(r, 16)
		var got []byte
		for len(got) < len(src) {
			left := len(src) - len(got)
			switch rng.Intn(4) {
			case 0:
				n := 1 + rng.Intn(min(left, 300))
				p, err := b.Peek(n)
				if err != nil || !bytes.Equal(p, src[len(got):len(got)+n]) {
					t.Fatalf("round %d: Peek(%d) at %d: %v", round, n, len(got), err)
				}
			case 1:
				p := make([]byte, 1+rng.Intn(100))
				n, err := b.Read(p)
				if err != nil && n == 0 {
					t.Fatalf("round %d: Read at %d: %v", round, len(got), err)
				}
				got = append(got, p[:n]...)
			case 2:
				c, err := b.ReadByte()
				if err != nil {
					t.Fatalf("round %d: ReadByte at %d: %v", round, len(got), err)
				}
				got = append(got, c)
			case 3:
				n := rng.Intn(min(left, 200) + 1)
				m, err := b.Discard(n)
				if err != nil || m != n {
					t.Fatalf("round %d: Discard(%d) = %d, %v", round, n, m, err)
				}
				got = append(got, src[len(got):len(got)+n]...)
			}
			if rng.Intn(10) == 0 {
				b.shrink()
			}
		}
		if !bytes.Equal(got, src) {
			t.Fatalf("round %d: stream differs", round)
		}
		if _, err := b.ReadByte(); !errors.Is(err, io.EOF) {
			t.Fatalf("round %d: after the end got %v", round, err)
		}
	}
}

// A Peek far beyond what arrives grows the buffer only with the data.
func TestInbufGrowsWithData(t *testing.T) {
	const sent = 10_000
	b := newInbuf(iotest.HalfReader(bytes.NewReader(make([]byte, sent))), 1024)
	if _, err := b.Peek(1 << 30); !errors.Is(err, io.EOF) {
		t.Fatalf("Peek past the end: %v", err)
	}
	if b.Buffered() != sent {
		t.Errorf("buffered %d, want %d", b.Buffered(), sent)
	}
	if c := len(b.buf); c > 2*sent {
		t.Errorf("buffer grew to %d for %d bytes", c, sent)
	}
	b.Discard(sent)
	b.shrink()
	if len(b.buf) != 1024 {
		t.Errorf("buffer of %d after shrink, want 1024", len(b.buf))
	}
}
