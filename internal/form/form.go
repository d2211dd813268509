// Package form reads request bodies the way the real service validates
// them: a body is decoded into generic JSON values (objects as
// map[string]any, numbers as json.Number), and typed readers take fields
// out of those values, recording every type error at the field's own path
// in an *apierr.Fields tree instead of stopping at the first one.
//
// Decoding generically, rather than into structs, is what lets a wrong
// type be reported per field with the body's own path and the offending
// value quoted as the real service (a Python schematics model) quotes it.
// The codes and message builders of those generic errors live here too,
// so that every API of slashd words a type error the same way; errors
// that belong to one API (APPLICATION_COMMAND_…, CHANNEL_PARENT_INVALID,
// …) stay with that API.
//
// The package has no I/O.
package form

import "errors"

// ErrInvalidJSON is returned by DecodeJSON for a body that is not one JSON value.
var ErrInvalidJSON = errors.New("invalid JSON")

// DecodeJSON parses a request body into generic JSON values: objects as
// map[string]any, arrays as []any and numbers as json.Number, so that
// large integers (snowflakes, permission bits) stay exact and every type
// error can be reported per field. Anything after the one value, other
// than white space, makes the body invalid.
func DecodeJSON(body []byte) (any, error) {
	v, ok := parseTree(body)
	if !ok {
		return nil, ErrInvalidJSON
	}
	return v, nil
}
