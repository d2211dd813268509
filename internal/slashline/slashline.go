// Package slashline reads the command lines `slashd invoke` takes, as a
// member would type them in the chat client's message box:
//
//	/group sub name:value other:"two words"
//
// Parse splits a line into words (the command's name, then a subcommand
// group and a subcommand) and name:value options. Resolve finds the
// command among those a member may use (the command picker's index) and
// types each value by its option's type, giving the data of the
// interaction to send. Nothing here does I/O.
//
// The syntax:
//
//   - The leading "/" may be left out. Words and options are separated by
//     white space; every word comes before the first option.
//   - An option is name:value, with nothing between the colon and the
//     value. A value running to the next white space is taken as it is
//     (colons and quotes inside it included); a value starting with a
//     double quote runs to the closing quote, and may hold white space
//     and the escapes \" \\ \n and \t. An empty value is written "".
package slashline

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line is a parsed command line.
type Line struct {
	// Words are the command's name, then the names of a subcommand
	// group and a subcommand, as typed (without the leading "/").
	Words []string
	// Args are the options, in the order typed.
	Args []Arg
}

// Arg is one name:value option as typed.
type Arg struct {
	Name, Value string
}

// SyntaxError is a line Parse cannot read.
type SyntaxError struct {
	Offset int // byte offset in the line
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("at character %d: %s", e.Offset+1, e.Msg)
}

// Parse reads a command line.
func Parse(s string) (Line, error) {
	p := parser{s: s}
	return p.line()
}

type parser struct {
	s   string
	pos int
}

func (p *parser) fail(at int, format string, args ...any) error {
	return &SyntaxError{Offset: at, Msg: fmt.Sprintf(format, args...)}
}

// peek returns the rune at the position, or utf8.RuneError and 0 at the end.
func (p *parser) peek() (rune, int) {
	if p.pos >= len(p.s) {
		return utf8.RuneError, 0
	}
	return utf8.DecodeRuneInString(p.s[p.pos:])
}

func (p *parser) skipSpace() {
	for {
		r, n := p.peek()
		if n == 0 || !unicode.IsSpace(r) {
			return
		}
		p.pos += n
	}
}

func (p *parser) atEnd() bool { return p.pos >= len(p.s) }

func (p *parser) line() (Line, error) {
	var l Line
	p.skipSpace()
	if !utf8.ValidString(p.s) {
		return l, p.fail(p.pos, "the line is not valid UTF-8")
	}
	if strings.HasPrefix(p.s[p.pos:], "/") {
		p.pos++
	}
	for p.skipSpace(); !p.atEnd(); p.skipSpace() {
		start := p.pos
		name := p.name()
		r, _ := p.peek()
		switch {
		case r == ':':
			if name == "" {
				return l, p.fail(start, "an option without a name (write name:value)")
			}
			p.pos++
			value, err := p.value(name)
			if err != nil {
				return l, err
			}
			l.Args = append(l.Args, Arg{Name: name, Value: value})
		case r == '"':
			return l, p.fail(p.pos, "a quote outside an option's value (write name:\"…\")")
		case len(l.Args) > 0:
			return l, p.fail(start, "%q after the options: words (the command, its group and subcommand) come first, "+
				"and a value with spaces needs quotes, as in name:\"two words\"", name)
		default:
			l.Words = append(l.Words, name)
		}
	}
	if len(l.Words) == 0 {
		if len(l.Args) > 0 {
			return l, p.fail(0, "no command name before the options (write /name option:value)")
		}
		return l, p.fail(0, "no command (write /name, then its options as name:value)")
	}
	return l, nil
}

// name reads up to white space, a colon or a quote.
func (p *parser) name() string {
	start := p.pos
	for {
		r, n := p.peek()
		if n == 0 || unicode.IsSpace(r) || r == ':' || r == '"' {
			return p.s[start:p.pos]
		}
		p.pos += n
	}
}

// value reads an option's value, after the colon.
func (p *parser) value(name string) (string, error) {
	r, n := p.peek()
	switch {
	case n == 0 || unicode.IsSpace(r):
		return "", p.fail(p.pos, "option %s has no value (write %s:VALUE, or %s:\"\" for an empty one)", name, name, name)
	case r != '"':
		start := p.pos
		for {
			r, n := p.peek()
			if n == 0 || unicode.IsSpace(r) {
				return p.s[start:p.pos], nil
			}
			p.pos += n
		}
	}
	open := p.pos
	p.pos++
	var b strings.Builder
	for {
		r, n := p.peek()
		switch {
		case n == 0:
			return "", p.fail(open, "option %s: the quote is never closed", name)
		case r == '"':
			p.pos++
			if r, n := p.peek(); n > 0 && !unicode.IsSpace(r) {
				return "", p.fail(p.pos, "option %s: %q right after the closing quote (separate options with a space)", name, r)
			}
			return b.String(), nil
		case r == '\\':
			esc := p.pos
			p.pos++
			r, n = p.peek()
			switch r {
			case '"', '\\':
				b.WriteRune(r)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				if n == 0 {
					return "", p.fail(open, "option %s: the quote is never closed", name)
				}
				return "", p.fail(esc, "option %s: unknown escape \\%c (inside quotes: \\\" \\\\ \\n \\t)", name, r)
			}
			p.pos += n
		default:
			b.WriteRune(r)
			p.pos += n
		}
	}
}

// String writes l back as a line Parse reads as l: values are quoted
// when they must be.
func (l Line) String() string {
	var b strings.Builder
	b.WriteString("/")
	b.WriteString(strings.Join(l.Words, " "))
	for _, a := range l.Args {
		b.WriteString(" ")
		b.WriteString(a.Name)
		b.WriteString(":")
		b.WriteString(Quote(a.Value))
	}
	return b.String()
}

// Quote writes a value as an option's value: as it is when it can be,
// else in double quotes with escapes.
func Quote(v string) string {
	if v != "" && !strings.HasPrefix(v, `"`) && strings.IndexFunc(v, unicode.IsSpace) < 0 {
		return v
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range v {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ErrAttachment is the refusal of an ATTACHMENT option: a command line
// cannot upload a file.
var ErrAttachment = errors.New("attachments cannot be given on a command line " +
	"(POST /api/v10/interactions takes them in data.attachments)")
