package jsonenc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The Append functions write values the way Marshal encodes them, for
// the hand-written encoders of the objects every invocation encodes (its
// payload, its answer's message, the users in them): encoding/json finds
// how to encode a struct by reflection, calls a method and checks its
// output again for each json.RawMessage and snowflake, and that cost
// more than building the objects. Each caller's fuzz test checks it
// writes exactly Marshal's bytes (jsonenctest.SameAsMarshal).

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, escaped as Marshal escapes it:
// encoding/json's escapes without the HTML ones (invalid UTF-8 becomes
// \ufffd; U+2028 and U+2029 are escaped).
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= ' ' && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendID appends a snowflake as the string Marshal writes for it.
func AppendID(dst []byte, id uint64) []byte {
	dst = append(dst, '"')
	dst = strconv.AppendUint(dst, id, 10)
	return append(dst, '"')
}

// AppendIDs appends a list of snowflakes (null when nil).
func AppendIDs[T ~uint64](dst []byte, ids []T) []byte {
	if ids == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, id := range ids {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendID(dst, uint64(id))
	}
	return append(dst, ']')
}

// AppendStrings appends a list of strings (null when nil).
func AppendStrings(dst []byte, ss []string) []byte {
	if ss == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, s := range ss {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, s)
	}
	return append(dst, ']')
}

// AppendIDMap appends a map of snowflakes by string key, keys sorted
// (null when nil).
func AppendIDMap[T ~uint64](dst []byte, m map[string]T) []byte {
	if m == nil {
		return append(dst, "null"...)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, k)
		dst = append(dst, ':')
		dst = AppendID(dst, uint64(m[k]))
	}
	return append(dst, '}')
}

// AppendNullString appends *s, or null.
func AppendNullString(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return AppendString(dst, *s)
}

// AppendRaw appends raw JSON as Marshal writes a json.RawMessage: null
// when nil, else compacted, U+2028 and U+2029 escaped; an error when it
// is not JSON.
func AppendRaw(dst []byte, raw json.RawMessage) ([]byte, error) {
	if raw == nil {
		return append(dst, "null"...), nil
	}
	start := len(dst)
	buf := bytes.NewBuffer(dst)
	if err := json.Compact(buf, raw); err != nil {
		return dst, fmt.Errorf("json: raw message: %w", err)
	}
	dst = buf.Bytes()
	// Valid JSON has them only inside strings: escaping them there is
	// what encoding/json does to a RawMessage's.
	if out := dst[start:]; bytes.Contains(out, []byte(lineSeparator)) || bytes.Contains(out, []byte(paragraphSeparator)) {
		out = bytes.ReplaceAll(out, []byte(lineSeparator), []byte(`\u2028`))
		out = bytes.ReplaceAll(out, []byte(paragraphSeparator), []byte(`\u2029`))
		dst = append(dst[:start], out...)
	}
	return dst, nil
}

const (
	lineSeparator      = "\u2028"
	paragraphSeparator = "\u2029"
)

// AppendRaws appends a list of raw JSON values (null when nil).
func AppendRaws(dst []byte, raws []json.RawMessage) ([]byte, error) {
	if raws == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '[')
	for i, r := range raws {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = AppendRaw(dst, r); err != nil {
			return dst, err
		}
	}
	return append(dst, ']'), nil
}

// AppendValue appends v as Marshal encodes it: for the fields the
// hand-written encoders leave to encoding/json (an interaction's data).
func AppendValue(dst []byte, v any) ([]byte, error) {
	b, err := Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}
