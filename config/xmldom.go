package config

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// element is a node of the small document model the parser reads from. It
// mirrors what 0.6 saw through a non-namespace-aware DOM: names exactly as
// written (prefix included), attributes in document order, and content
// (text and child elements) in document order.
type element struct {
	name  string
	attrs []xml.Attr
	items []item
}

// item is one piece of an element's content: text or a child element.
type item struct {
	text string
	elem *element
}

// attr returns the value of the named attribute and whether it is present.
// Unlike an element, an attribute written as Name="" is present: 0.6 read
// attributes through getNamedItem, which does not turn "" into null.
func (e *element) attr(name string) (string, bool) {
	for _, a := range e.attrs {
		if qualified(a.Name) == name {
			return a.Value, true
		}
	}
	return "", false
}

// children returns the child elements, in document order.
func (e *element) children() []*element {
	var out []*element
	for _, it := range e.items {
		if it.elem != nil {
			out = append(out, it.elem)
		}
	}
	return out
}

// stringValue is the XPath string-value of e: all its descendant text in
// document order, untrimmed, as 0.6's XPath evaluation returned it.
func (e *element) stringValue() string {
	var b strings.Builder
	e.appendText(&b)
	return b.String()
}

func (e *element) appendText(b *strings.Builder) {
	for _, it := range e.items {
		if it.elem != nil {
			it.elem.appendText(b)
		} else {
			b.WriteString(it.text)
		}
	}
}

func qualified(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// parseDocument reads a well-formed XML document and returns its root
// element. Names are kept as written, as a non-namespace-aware parser
// (0.6's DocumentBuilderFactory default) reports them.
func parseDocument(data []byte) (*element, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	d := xml.NewDecoder(bytes.NewReader(data))
	d.CharsetReader = charsetReader
	var root *element
	var stack []*element
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		line, _ := d.InputPos()
		switch t := tok.(type) {
		case xml.StartElement:
			e := &element{name: qualified(t.Name), attrs: t.Attr}
			if err := checkAttrs(e, line); err != nil {
				return nil, err
			}
			switch {
			case len(stack) > 0:
				top := stack[len(stack)-1]
				top.items = append(top.items, item{elem: e})
			case root == nil:
				root = e
			default:
				return nil, fmt.Errorf("line %d: a second root element <%s> after the document element", line, e.name)
			}
			stack = append(stack, e)
		case xml.EndElement:
			name := qualified(t.Name)
			if len(stack) == 0 {
				return nil, fmt.Errorf("line %d: unexpected end tag </%s>", line, name)
			}
			if top := stack[len(stack)-1]; top.name != name {
				return nil, fmt.Errorf("line %d: element <%s> closed by </%s>", line, top.name, name)
			}
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				top.items = append(top.items, item{text: string(t)})
			} else if len(bytes.TrimSpace(t)) > 0 {
				return nil, fmt.Errorf("line %d: text outside the document element", line)
			}
		}
	}
	if root == nil {
		return nil, errors.New("no document element")
	}
	if len(stack) > 0 {
		return nil, fmt.Errorf("unexpected end of file: element <%s> is not closed", stack[len(stack)-1].name)
	}
	return root, nil
}

// checkAttrs refuses a repeated attribute, which XML forbids but the
// decoder does not check.
func checkAttrs(e *element, line int) error {
	for i, a := range e.attrs {
		for _, b := range e.attrs[:i] {
			if qualified(a.Name) == qualified(b.Name) {
				return fmt.Errorf("line %d: attribute %q is repeated on <%s>", line, qualified(a.Name), e.name)
			}
		}
	}
	return nil
}

// charsetReader decodes the single-byte encodings a hand-written Java-era
// configuration may declare; UTF-8 needs no reader.
func charsetReader(label string, in io.Reader) (io.Reader, error) {
	switch strings.ToLower(label) {
	case "iso-8859-1", "iso8859-1", "latin1", "l1", "us-ascii", "ascii":
		b, err := io.ReadAll(in)
		if err != nil {
			return nil, err
		}
		out := make([]byte, 0, len(b))
		for _, c := range b {
			out = utf8.AppendRune(out, rune(c))
		}
		return bytes.NewReader(out), nil
	}
	return nil, fmt.Errorf("unsupported encoding %q (use UTF-8 or ISO-8859-1)", label)
}
