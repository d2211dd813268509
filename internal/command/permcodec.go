package command

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/slashd/slashd/internal/snowflake"
)

// DecodePermissions reads a stored overwrite list. The store writes lists
// with encoding/json, so they have one exact shape,
//
//	[{"id":"123","type":1,"permission":true},...]
//
// which this reads without reflection: a guild can hold a hundred lists
// of a hundred entries, and the command picker reads them all. Anything
// else falls back to encoding/json, so the result is always the same as
// json.Unmarshal's.
func DecodePermissions(b []byte) ([]Permission, error) {
	if out, ok := decodePermissionsFast(b); ok {
		return out, nil
	}
	var out []Permission
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func decodePermissionsFast(b []byte) ([]Permission, bool) {
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return nil, false
	}
	body := b[1 : len(b)-1]
	out := make([]Permission, 0, bytes.Count(body, []byte(`{"id":`)))
	for len(body) > 0 {
		var p Permission
		var ok bool
		if body, ok = cut(body, `{"id":"`); !ok {
			return nil, false
		}
		end := bytes.IndexByte(body, '"')
		if end < 0 {
			return nil, false
		}
		id, err := snowflake.Parse(string(body[:end]))
		if err != nil {
			return nil, false
		}
		p.ID = id
		if body, ok = cut(body[end:], `","type":`); !ok {
			return nil, false
		}
		end = bytes.IndexByte(body, ',')
		if end < 0 {
			return nil, false
		}
		t, err := strconv.Atoi(string(body[:end]))
		if err != nil || strconv.Itoa(t) != string(body[:end]) {
			return nil, false
		}
		p.Type = PermissionType(t)
		if body, ok = cut(body[end:], `,"permission":`); !ok {
			return nil, false
		}
		switch {
		case bytes.HasPrefix(body, []byte("true}")):
			p.Permission, body = true, body[5:]
		case bytes.HasPrefix(body, []byte("false}")):
			body = body[6:]
		default:
			return nil, false
		}
		out = append(out, p)
		if len(body) > 0 {
			if body[0] != ',' || len(body) == 1 {
				return nil, false
			}
			body = body[1:]
		}
	}
	return out, true
}

func cut(b []byte, prefix string) ([]byte, bool) {
	if !bytes.HasPrefix(b, []byte(prefix)) {
		return b, false
	}
	return b[len(prefix):], true
}
