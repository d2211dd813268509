package command

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/snowflake"
)

// ErrInvalidJSON is returned by DecodeJSON for a body that is not one JSON value.
var ErrInvalidJSON = errors.New("invalid JSON")

// DecodeJSON parses a request body into generic JSON values (objects as
// map[string]any, numbers as json.Number) so that type errors can be
// reported per field, with the body's own path, the way the real service
// does.
func DecodeJSON(body []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, ErrInvalidJSON
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, ErrInvalidJSON
	}
	return v, nil
}

// obj reads typed fields out of one JSON object and records type errors
// at the field's path.
type obj struct {
	m    map[string]any
	errs *apierr.Fields
}

// asObject returns the object or records MODEL_TYPE_CONVERT at errs.
func asObject(v any, errs *apierr.Fields) (obj, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			errs.Add(codeListItemNull, msgListItemNull)
		} else {
			errs.Add(codeModelConvert, msgModelConvert)
		}
		return obj{}, false
	}
	return obj{m: m, errs: errs}, true
}

// present reports whether key is in the object with a non-null value.
func (o obj) present(key string) bool {
	v, ok := o.m[key]
	return ok && v != nil
}

// has reports whether key is in the object at all (null included).
func (o obj) has(key string) bool {
	_, ok := o.m[key]
	return ok
}

func (o obj) str(key string) (string, bool) {
	v, ok := o.m[key]
	if !ok || v == nil {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		o.errs.At(key).Add(codeStringConvert, msgNotString(v))
		return "", false
	}
	return s, true
}

func (o obj) boolean(key string) (bool, bool) {
	v, ok := o.m[key]
	if !ok || v == nil {
		return false, false
	}
	b, ok := v.(bool)
	if !ok {
		o.errs.At(key).Add(codeBoolConvert, msgBoolConvert)
		return false, false
	}
	return b, true
}

// integer reads an int field; JSON numbers and numeric strings are
// accepted, as by the real service.
func (o obj) integer(key string) (int64, bool) {
	v, ok := o.m[key]
	if !ok || v == nil {
		return 0, false
	}
	n, ok := toInt(v)
	if !ok {
		o.errs.At(key).Add(codeCoerce, msgNotInt(v))
		return 0, false
	}
	return n, true
}

func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case json.Number:
		if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return n, true
		}
		if f, err := strconv.ParseFloat(string(x), 64); err == nil && f == math.Trunc(f) && math.Abs(f) <= MaxNumber {
			return int64(f), true
		}
	case string:
		if n, err := strconv.ParseInt(x, 10, 64); err == nil {
			return n, true
		}
	}
	return 0, false
}

func toFloat(v any) (float64, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = x
	default:
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

func (o obj) list(key string) ([]any, bool) {
	v, ok := o.m[key]
	if !ok || v == nil {
		return nil, false
	}
	l, ok := v.([]any)
	if !ok {
		o.errs.At(key).Add(codeListConvert, msgListConvert)
		return nil, false
	}
	return l, true
}

func (o obj) dict(key string) (map[string]any, bool) {
	v, ok := o.m[key]
	if !ok || v == nil {
		return nil, false
	}
	d, ok := v.(map[string]any)
	if !ok {
		o.errs.At(key).Add(codeDictConvert, msgDictConvert)
		return nil, false
	}
	return d, true
}

func (o obj) snowflake(key string) (snowflake.ID, bool) {
	v, ok := o.m[key]
	if !ok || v == nil {
		return 0, false
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case json.Number:
		s = string(x)
	}
	id, err := snowflake.Parse(s)
	if err != nil {
		o.errs.At(key).Add(codeCoerce, msgNotSnowflake(v))
		return 0, false
	}
	return id, true
}

// intList reads an array of ints, each one of allowed.
func (o obj) intList(key string, allowed []int) ([]int, bool) {
	l, ok := o.list(key)
	if !ok {
		return nil, false
	}
	out := make([]int, 0, len(l))
	seen := make(map[int]bool, len(l))
	good := true
	for i, item := range l {
		n, ok := toInt(item)
		if !ok {
			o.errs.At(key, i).Add(codeCoerce, msgNotInt(item))
			good = false
			continue
		}
		if !containsInt(allowed, int(n)) || n != int64(int(n)) {
			o.errs.At(key, i).Add(codeChoices, msgChoicesOf(allowed))
			good = false
			continue
		}
		if !seen[int(n)] { // duplicates carry no meaning; keep the first
			seen[int(n)] = true
			out = append(out, int(n))
		}
	}
	return out, good
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
