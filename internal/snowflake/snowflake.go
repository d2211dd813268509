// Package snowflake mints and parses 64-bit IDs in the real service's
// layout: 42 bits of milliseconds since 2015-01-01T00:00:00Z, 5 bits of
// worker, 5 bits of process and a 12-bit per-millisecond increment. IDs are
// serialized as decimal strings in JSON.
package snowflake

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"
)

// Epoch is the first millisecond of 2015, in Unix milliseconds.
const Epoch int64 = 1420070400000

// ID is a snowflake. Zero means "none".
type ID uint64

// String renders the decimal form.
func (id ID) String() string { return strconv.FormatUint(uint64(id), 10) }

// Time is the moment encoded in the ID.
func (id ID) Time() time.Time {
	return time.UnixMilli(int64(id>>22) + Epoch).UTC()
}

// MarshalText renders the ID in decimal; encoding/json writes it as a
// JSON string. A text marshaler rather than MarshalJSON because
// encoding/json copies text as it is, where it re-scans and compacts what
// a MarshalJSON returns: on a payload of a few dozen IDs (an invocation,
// a list of commands) that scan was a measurable share of the encoding.
func (id ID) MarshalText() ([]byte, error) {
	return strconv.AppendUint(nil, uint64(id), 10), nil
}

// UnmarshalJSON accepts a string or a number.
func (id *ID) UnmarshalJSON(b []byte) error {
	var s string
	switch {
	case len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' && !bytes.ContainsAny(b[1:len(b)-1], `"\`):
		s = string(b[1 : len(b)-1]) // the usual case, without a second decoder
	case len(b) > 0 && b[0] == '"':
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	default:
		s = string(b)
	}
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// ErrInvalid is returned for text that is not a snowflake.
var ErrInvalid = errors.New("not a snowflake")

// Parse reads a decimal snowflake: digits only, no sign, no leading zeros
// (except "0"), at most 2^64-1.
func Parse(s string) (ID, error) {
	if s == "" || len(s) > 20 || (len(s) > 1 && s[0] == '0') {
		return 0, ErrInvalid
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, ErrInvalid
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, ErrInvalid
	}
	return ID(v), nil
}

// FromTime is the smallest ID of the millisecond t falls in.
func FromTime(t time.Time) ID {
	ms := t.UnixMilli() - Epoch
	if ms < 0 {
		ms = 0
	}
	return ID(uint64(ms) << 22)
}

// Generator mints unique, increasing IDs. Safe for concurrent use.
type Generator struct {
	mu     sync.Mutex
	now    func() time.Time
	node   uint64 // worker<<5 | process, 10 bits
	lastMS int64
	seq    uint64
}

// NewGenerator returns a generator for a node (0-1023). now may be nil.
func NewGenerator(node uint16, now func() time.Time) *Generator {
	if now == nil {
		now = time.Now
	}
	return &Generator{now: now, node: uint64(node) & 0x3FF}
}

// Node is the generator's node number.
func (g *Generator) Node() uint16 { return uint16(g.node) }

// Next returns a new ID, strictly greater than every earlier one of this
// generator, even if the clock steps back or 4096 IDs are asked for in one
// millisecond (the generator then borrows from the next millisecond).
func (g *Generator) Next() ID {
	g.mu.Lock()
	defer g.mu.Unlock()
	ms := g.now().UnixMilli() - Epoch
	if ms < 0 {
		ms = 0
	}
	if ms <= g.lastMS {
		g.seq++
		if g.seq > 0xFFF {
			g.seq = 0
			g.lastMS++
		}
		ms = g.lastMS
	} else {
		g.seq = 0
		g.lastMS = ms
	}
	return ID(uint64(ms)<<22 | g.node<<12 | g.seq)
}

// After makes every later ID of g greater than id, so that a short-lived
// process (the CLI) sharing a store with others never reissues an id it
// may have issued in an earlier run within the same millisecond.
func (g *Generator) After(id ID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if ms := int64(id >> 22); ms >= g.lastMS {
		g.lastMS, g.seq = ms+1, 0
	}
}
