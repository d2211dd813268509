package interaction

import (
	"strconv"

	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
)

// appendJSON appends d exactly as jsonenc.Marshal encodes it: by hand
// for the command and its options, through jsonenc for resolved
// entities and for option values of a type the validator does not make
// (FuzzPayloadDataAppendJSON checks the bytes).
func (d *PayloadData) appendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"id":`...)
	b = jsonenc.AppendID(b, uint64(d.ID))
	b = append(b, `,"name":`...)
	b = jsonenc.AppendString(b, d.Name)
	b = append(b, `,"type":`...)
	b = strconv.AppendInt(b, int64(d.Type), 10)
	if d.GuildID != 0 {
		b = append(b, `,"guild_id":`...)
		b = jsonenc.AppendID(b, uint64(d.GuildID))
	}
	if len(d.Options) > 0 {
		b = append(b, `,"options":`...)
		if b, err = appendValues(b, d.Options); err != nil {
			return b, err
		}
	}
	if d.TargetID != 0 {
		b = append(b, `,"target_id":`...)
		b = jsonenc.AppendID(b, uint64(d.TargetID))
	}
	if d.Resolved != nil {
		b = append(b, `,"resolved":`...)
		if b, err = jsonenc.AppendValue(b, d.Resolved); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendValues appends options as a JSON array.
func appendValues(b []byte, vs []Value) ([]byte, error) {
	b = append(b, '[')
	var err error
	for i := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = vs[i].appendJSON(b); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

func (v *Value) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"name":`...)
	b = jsonenc.AppendString(b, v.Name)
	b = append(b, `,"type":`...)
	b = strconv.AppendInt(b, int64(v.Type), 10)
	if !emptyValue(v.Value) {
		b = append(b, `,"value":`...)
		var err error
		if b, err = appendOptionValue(b, v.Value); err != nil {
			return b, err
		}
	}
	if v.Options != nil { // omitzero: an empty list is written
		b = append(b, `,"options":`...)
		var err error
		if b, err = appendValues(b, v.Options); err != nil {
			return b, err
		}
	}
	if v.Focused {
		b = append(b, `,"focused":true`...)
	}
	return append(b, '}'), nil
}

// emptyValue is omitempty's test for an interface field: nil only (an
// interface holding "" or false is not empty).
func emptyValue(v any) bool { return v == nil }

// appendOptionValue appends an option's value: the types Validate makes
// by hand, any other through jsonenc.
func appendOptionValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		return jsonenc.AppendString(b, x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case snowflake.ID:
		return jsonenc.AppendID(b, uint64(x)), nil
	}
	return jsonenc.AppendValue(b, v)
}
