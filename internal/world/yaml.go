package world

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// ErrInvalidYAML is FromYAML's error for a document that is not YAML or
// that JSON could not express (a key that is not a string, an anchor
// cycle, …).
var ErrInvalidYAML = errors.New("invalid YAML")

// FromYAML parses one YAML document into the generic values
// form.DecodeJSON gives (objects as map[string]any, numbers as
// json.Number), so that a YAML spec goes through the very readers a JSON
// one does, with the same errors.
func FromYAML(b []byte) (any, error) {
	var v any
	if err := yaml.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidYAML, err)
	}
	return fromYAML(v, 0)
}

// maxYAMLDepth bounds nesting (aliases can make a small document deep).
const maxYAMLDepth = 64

func fromYAML(v any, depth int) (any, error) {
	if depth > maxYAMLDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d", ErrInvalidYAML, maxYAMLDepth)
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := fromYAML(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("%w: a key that is not a string (%v)", ErrInvalidYAML, k)
			}
			c, err := fromYAML(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[ks] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := fromYAML(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case int:
		return json.Number(strconv.Itoa(x)), nil
	case int64:
		return json.Number(strconv.FormatInt(x, 10)), nil
	case uint64:
		return json.Number(strconv.FormatUint(x, 10)), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil, fmt.Errorf("%w: %v is not a JSON number", ErrInvalidYAML, x)
		}
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64)), nil
	case nil, bool, string:
		return x, nil
	}
	// Timestamps and binary: JSON has no such types; their text is what
	// a spec means.
	return nil, fmt.Errorf("%w: a value JSON cannot hold (%T)", ErrInvalidYAML, v)
}
