package journal

import (
	"errors"
	"slices"
	"strconv"
	"strings"
)

// A cursor is opaque to clients; it is the decimal Seq of the last entry
// read ("" and "0": before the first).

// FormatCursor renders seq as a cursor.
func FormatCursor(seq int64) string { return strconv.FormatInt(seq, 10) }

// ErrBadCursor: a cursor this server did not make.
var ErrBadCursor = errors.New("not a cursor of this journal")

// ParseCursor reads a cursor made by FormatCursor ("": 0).
func ParseCursor(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	if len(s) > 19 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, ErrBadCursor
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, ErrBadCursor
	}
	return n, nil
}

// ErrUnknownType: a type filter names no entry type.
type ErrUnknownType struct{ Type string }

func (e ErrUnknownType) Error() string { return "unknown event type " + strconv.Quote(e.Type) }

// ParseTypes reads a type filter: comma-separated entry types, or
// Failures ("": every type). It returns the types to select and whether
// only failures are wanted (then the store's selection is narrowed
// further by IsFailure).
func ParseTypes(s string) (types []string, failuresOnly bool, err error) {
	if strings.TrimSpace(s) == "" {
		return nil, false, nil
	}
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		switch {
		case t == "":
			continue
		case t == Failures:
			failuresOnly = true
		case slices.Contains(Types, t):
			if !slices.Contains(types, t) {
				types = append(types, t)
			}
		default:
			return nil, false, ErrUnknownType{t}
		}
	}
	if failuresOnly {
		// Only types that can be failures; with other types named too,
		// failures of those.
		candidates := []string{RESTRequest, InteractionFailed, RateLimitHit, Dropped}
		if len(types) > 0 {
			candidates = slices.DeleteFunc(candidates, func(c string) bool { return !slices.Contains(types, c) })
			if len(candidates) == 0 {
				return nil, false, ErrUnknownType{Failures + " with " + strings.Join(types, ",")}
			}
		}
		types = candidates
	}
	return types, failuresOnly, nil
}
