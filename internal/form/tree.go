package form

import (
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is how deeply arrays and objects may nest, as in
// encoding/json.
const maxDepth = 10000

// treeParser reads one JSON text into the values encoding/json decodes
// into an `any` with UseNumber, in one pass over the bytes: every request
// body goes through it, and encoding/json's Decoder took 3.7–4.6 µs for
// an invocation's 261 bytes where this takes 1.6 (BenchmarkDecodeJSON;
// the Decoder scans the value once to find its end, then again to decode
// it, through a state machine per byte). FuzzTreeParser
// checks it decodes exactly what encoding/json decodes, and fails exactly
// where encoding/json fails.
type treeParser struct {
	b     []byte
	i     int
	depth int
}

// parseTree decodes body, which must hold one JSON value and nothing
// else but white space.
func parseTree(body []byte) (any, bool) {
	p := treeParser{b: body}
	p.space()
	v, ok := p.value()
	if !ok {
		return nil, false
	}
	p.space()
	return v, p.i == len(p.b)
}

func (p *treeParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *treeParser) value() (any, bool) {
	if p.i >= len(p.b) {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.string()
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	}
	return nil, false
}

func (p *treeParser) literal(word string) bool {
	if len(p.b)-p.i < len(word) || string(p.b[p.i:p.i+len(word)]) != word {
		return false
	}
	p.i += len(word)
	return true
}

// enter and leave count nesting, as encoding/json bounds it.
func (p *treeParser) enter() bool {
	p.depth++
	return p.depth <= maxDepth
}

func (p *treeParser) leave() { p.depth-- }

func (p *treeParser) object() (any, bool) {
	if !p.enter() {
		return nil, false
	}
	defer p.leave()
	p.i++ // {
	m := map[string]any{}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return m, true
	}
	for {
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, false
		}
		k, ok := p.string()
		if !ok {
			return nil, false
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, false
		}
		p.i++
		p.space()
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		m[k.(string)] = v // a repeated key: the last value, as encoding/json
		more, ok := p.separator('}')
		if !ok {
			return nil, false
		}
		if !more {
			return m, true
		}
	}
}

func (p *treeParser) array() (any, bool) {
	if !p.enter() {
		return nil, false
	}
	defer p.leave()
	p.i++ // [
	a := make([]any, 0)
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return a, true
	}
	for {
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		a = append(a, v)
		more, ok := p.separator(']')
		if !ok {
			return nil, false
		}
		if !more {
			return a, true
		}
	}
}

// separator reads what follows an object's member or an array's
// element: a comma (more to come) or the closing byte.
func (p *treeParser) separator(closing byte) (more, ok bool) {
	p.space()
	if p.i >= len(p.b) {
		return false, false
	}
	switch p.b[p.i] {
	case ',':
		p.i++
		p.space()
		return true, true
	case closing:
		p.i++
		return false, true
	}
	return false, false
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? as its
// literal text.
func (p *treeParser) number() (any, bool) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case p.digits() == 0:
		return nil, false
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return nil, false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return nil, false
		}
	}
	return json.Number(p.b[start:p.i]), true
}

func (p *treeParser) digits() int {
	start := p.i
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i - start
}

// string reads a string whose opening quote is at p.i. Plain ASCII
// without escapes is copied as it is; otherwise escapes are decoded and
// invalid UTF-8 (a byte, or a lone surrogate escaped) becomes U+FFFD, as
// encoding/json does.
func (p *treeParser) string() (any, bool) {
	p.i++ // "
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			s := string(p.b[start:p.i])
			p.i++
			return s, true
		case c == '\\' || c >= utf8.RuneSelf:
			return p.slowString(start)
		case c < ' ':
			return nil, false
		}
		p.i++
	}
	return nil, false
}

func (p *treeParser) slowString(start int) (any, bool) {
	out := make([]byte, p.i-start, p.i-start+16)
	copy(out, p.b[start:p.i])
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), true
		case c < ' ':
			return nil, false
		case c == '\\':
			var ok bool
			if out, ok = p.escape(out); !ok {
				return nil, false
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			p.i++
		default:
			r, size := utf8.DecodeRune(p.b[p.i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, p.b[p.i:p.i+size]...)
			}
			p.i += size
		}
	}
	return nil, false
}

// escape decodes the escape at p.i onto out.
func (p *treeParser) escape(out []byte) ([]byte, bool) {
	if p.i+1 >= len(p.b) {
		return out, false
	}
	c := p.b[p.i+1]
	p.i += 2
	switch c {
	case '"', '\\', '/':
		return append(out, c), true
	case 'b':
		return append(out, '\b'), true
	case 'f':
		return append(out, '\f'), true
	case 'n':
		return append(out, '\n'), true
	case 'r':
		return append(out, '\r'), true
	case 't':
		return append(out, '\t'), true
	case 'u':
		r, ok := p.hex4()
		if !ok {
			return out, false
		}
		if utf16.IsSurrogate(r) {
			// A pair makes one rune; anything else leaves this half
			// unpaired (U+FFFD) and the next escape read on its own.
			if p.i+1 < len(p.b) && p.b[p.i] == '\\' && p.b[p.i+1] == 'u' {
				save := p.i
				p.i += 2
				r2, ok := p.hex4()
				if !ok {
					return out, false
				}
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					return utf8.AppendRune(out, dec), true
				}
				p.i = save
			}
			r = utf8.RuneError
		}
		return utf8.AppendRune(out, r), true
	}
	return out, false
}

func (p *treeParser) hex4() (rune, bool) {
	if len(p.b)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	p.i += 4
	return r, true
}
