// Package wwwauth reads WWW-Authenticate values as an HTTP client does
// (RFC 7235 §4.1), for tests that check the challenges slashd sends.
package wwwauth

import (
	"fmt"
	"strings"
)

// Challenge is one parsed challenge: its scheme (as sent) and either
// its auth-params (names lower-cased, values unquoted) or a token68.
type Challenge struct {
	Scheme  string
	Params  map[string]string
	Token68 string
}

// Parse reads a WWW-Authenticate value, a comma-separated list of
// challenges:
//
//	challenge  = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
//	auth-param = token BWS "=" BWS ( token / quoted-string )
//
// A parameter named twice in one challenge is an error (§2.2: "Each
// parameter name MUST only occur once per challenge").
func Parse(header string) ([]Challenge, error) {
	p := parser{s: header}
	var out []Challenge
	for {
		p.skipListSeparators()
		if p.done() {
			break
		}
		c, err := p.challenge()
		if err != nil {
			return nil, fmt.Errorf("WWW-Authenticate %q: %w", header, err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("WWW-Authenticate %q: no challenge", header)
	}
	return out, nil
}

type parser struct {
	s   string
	pos int
}

func (p *parser) done() bool { return p.pos >= len(p.s) }

func (p *parser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.pos]
}

func (p *parser) skipSpace() {
	for !p.done() && (p.peek() == ' ' || p.peek() == '\t') {
		p.pos++
	}
}

func (p *parser) skipListSeparators() {
	for !p.done() && (p.peek() == ' ' || p.peek() == '\t' || p.peek() == ',') {
		p.pos++
	}
}

// tchar is RFC 7230 §3.2.6's token character.
func tchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func (p *parser) token() string {
	start := p.pos
	for !p.done() && tchar(p.peek()) {
		p.pos++
	}
	return p.s[start:p.pos]
}

func (p *parser) challenge() (Challenge, error) {
	scheme := p.token()
	if scheme == "" {
		return Challenge{}, fmt.Errorf("at %d: want an auth-scheme", p.pos)
	}
	c := Challenge{Scheme: scheme}
	if p.done() || p.peek() == ',' {
		return c, nil
	}
	if p.peek() != ' ' {
		return Challenge{}, fmt.Errorf("at %d: want a space after the scheme", p.pos)
	}
	p.skipSpace()
	if t, ok := p.token68(); ok {
		c.Token68 = t
		return c, nil
	}
	c.Params = map[string]string{}
	for {
		save := p.pos
		name := p.token()
		p.skipSpace()
		if name == "" || p.peek() != '=' {
			// The next challenge's scheme (or the end): this one is over.
			p.pos = save
			if len(c.Params) == 0 {
				return Challenge{}, fmt.Errorf("at %d: want an auth-param", p.pos)
			}
			return c, nil
		}
		p.pos++ // '='
		p.skipSpace()
		value, err := p.value()
		if err != nil {
			return Challenge{}, err
		}
		key := strings.ToLower(name)
		if _, dup := c.Params[key]; dup {
			return Challenge{}, fmt.Errorf("parameter %q twice", name)
		}
		c.Params[key] = value
		p.skipSpace()
		if p.done() {
			return c, nil
		}
		if p.peek() != ',' {
			return Challenge{}, fmt.Errorf("at %d: want a comma after parameter %q", p.pos, name)
		}
		p.skipListSeparators()
		if p.done() {
			return c, nil
		}
	}
}

// token68 reads a token68 when the rest of the challenge is one (it
// ends at a comma or the end, and is not the name of an auth-param).
func (p *parser) token68() (string, bool) {
	i := p.pos
	for i < len(p.s) && token68char(p.s[i]) {
		i++
	}
	end := i
	for i < len(p.s) && p.s[i] == '=' {
		i++
	}
	j := i
	for j < len(p.s) && (p.s[j] == ' ' || p.s[j] == '\t') {
		j++
	}
	if end == p.pos || (j < len(p.s) && p.s[j] != ',') {
		return "", false
	}
	t := p.s[p.pos:i]
	p.pos = j
	return t, true
}

func token68char(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~+/", c) >= 0
}

func (p *parser) value() (string, error) {
	if p.peek() != '"' {
		v := p.token()
		if v == "" {
			return "", fmt.Errorf("at %d: want a token or a quoted-string", p.pos)
		}
		return v, nil
	}
	p.pos++
	var b strings.Builder
	for !p.done() {
		c := p.peek()
		p.pos++
		switch {
		case c == '"':
			return b.String(), nil
		case c == '\\':
			if p.done() {
				return "", fmt.Errorf("quoted-string ends in a backslash")
			}
			b.WriteByte(p.peek())
			p.pos++
		case c < 0x20 && c != '\t' || c == 0x7f:
			return "", fmt.Errorf("control character %#x in a quoted-string", c)
		default:
			b.WriteByte(c)
		}
	}
	return "", fmt.Errorf("unterminated quoted-string")
}
