package journal

import (
	"encoding/json"
	"fmt"

	"github.com/slashd/slashd/internal/jsonenc"
)

// Spliced is an entry body whose large JSON members (an interaction's
// payload, a message, an answer) are spliced in as they are: Fields (a
// struct or map, encoded by encoding/json) followed by Members. The
// writer checks each member's JSON once and appends it; encoding/json
// would check and compact it again at every level it is nested in, the
// most of the writer's work on kilobytes of payloads and messages.
type Spliced struct {
	Fields  any
	Members []Member
}

// Member is one spliced member: JSON as it is, or Value encoded by the
// writer. Empty or invalid JSON (none should be) leaves the member out,
// not the entry. Name is a plain member name, written as it is.
type Member struct {
	Name  string
	JSON  []byte
	Value *Spliced
	// Encoded says JSON is what this process's encoder just wrote (an
	// interaction's payload, a gateway frame's data): spliced without
	// the check, which is the most of the writer's encoding work. JSON
	// read back from the store is checked.
	Encoded bool
}

// appendSpliced appends s's encoding to b.
func appendSpliced(b []byte, s Spliced) ([]byte, error) {
	head, err := jsonenc.Marshal(s.Fields)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	if len(head) < 2 || head[0] != '{' || head[len(head)-1] != '}' {
		return nil, fmt.Errorf("encode: fields of %T are not an object", s.Fields)
	}
	b = append(b, head[:len(head)-1]...)
	first := len(head) == 2
	for _, m := range s.Members {
		start := len(b)
		if !first {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, m.Name...)
		b = append(b, '"', ':')
		value := len(b)
		switch {
		case m.Value != nil:
			if b, err = appendSpliced(b, *m.Value); err != nil {
				return nil, err
			}
		case len(m.JSON) > 0 && (m.Encoded || json.Valid(m.JSON)):
			b = append(b, m.JSON...)
		}
		if len(b) == value {
			b = b[:start] // left out
			continue
		}
		first = false
	}
	return append(b, '}'), nil
}

// encodeSpliced is s's encoding, written the way jsonenc writes (no HTML
// escapes in the spliced members either), as encoding it all through
// jsonenc would have.
func encodeSpliced(s Spliced) ([]byte, error) {
	b, err := appendSpliced(make([]byte, 0, s.sizeHint()), s)
	if err != nil {
		return nil, err
	}
	return jsonenc.UnescapeHTML(b), nil
}

// Encode is s's encoding as the journal writes it: the same bytes as
// encoding s's whole value through jsonenc, with the spliced members
// checked (or trusted, Encoded) once instead of compacted again.
func Encode(s Spliced) ([]byte, error) { return encodeSpliced(s) }

// sizeHint is a little over s's encoded size: its members' JSON, nested
// ones included, and room for the fields (an entry's take 150–300
// bytes), so that the buffer seldom grows.
func (s Spliced) sizeHint() int {
	n := 384
	for _, m := range s.Members {
		n += len(m.Name) + 4 + len(m.JSON)
		if m.Value != nil {
			n += m.Value.sizeHint()
		}
	}
	return n
}
