package admin

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/snowflake"
)

// TestWorldField: "world_id" of a create request: absent or null is
// not given (the default world), "0" is world 0 given, a snowflake names
// one, anything else is a form error there.
func TestWorldField(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		body    map[string]any
		want    snowflake.ID
		given   bool
		invalid bool
	}{
		{"absent", map[string]any{}, 0, false, false},
		{"null", map[string]any{"world_id": nil}, 0, false, false},
		{"a snowflake", map[string]any{"world_id": "1234567890123456789"}, 1234567890123456789, true, false},
		{"zero: no world", map[string]any{"world_id": "0"}, 0, true, false},
		{"zero as a number", map[string]any{"world_id": json.Number("0")}, 0, true, false},
		{"zero padded", map[string]any{"world_id": "00"}, 0, true, true},
		{"words", map[string]any{"world_id": "ban-tests"}, 0, true, true},
		{"a list", map[string]any{"world_id": []any{"1"}}, 0, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := NewForm(tc.body)
			got, given := WorldField(f)
			if got != tc.want || given != tc.given || (f.Err() != nil) != tc.invalid {
				t.Errorf("WorldField = %d, %v, errors %v; want %d, %v, invalid %v", got, given, f.Err(), tc.want, tc.given, tc.invalid)
			}
		})
	}
}

// TestSameWorld: one world is no error; two are WORLD_MISMATCH at the
// path, naming both.
func TestSameWorld(t *testing.T) {
	t.Parallel()
	if err := SameWorld("user", 7, "guild", 7, "user_id"); err != nil {
		t.Fatalf("same world: %v", err)
	}
	for _, tc := range []struct {
		world, other snowflake.ID
		msg          string
	}{
		{5, 0, "The user belongs to another world (world 5) than the guild (no world)"},
		{0, 6, "The user belongs to another world (no world) than the guild (world 6)"},
		{5, 6, "The user belongs to another world (world 5) than the guild (world 6)"},
	} {
		err := SameWorld("user", tc.world, "guild", tc.other, "user_id")
		var ae *apierr.Error
		if !errors.As(err, &ae) || ae.Status != 400 || ae.Code != 50035 {
			t.Fatalf("SameWorld(%d, %d) = %v, want a 400 50035", tc.world, tc.other, err)
		}
		b, _ := json.Marshal(ae.Fields)
		want, _ := json.Marshal(map[string]any{"user_id": map[string]any{"_errors": []any{
			map[string]any{"code": CodeWorldMismatch, "message": tc.msg}}}})
		if string(b) != string(want) {
			t.Errorf("SameWorld(%d, %d) fields %s, want %s", tc.world, tc.other, b, want)
		}
	}
}

// FuzzWorldField: any JSON value at "world_id" is read without a panic,
// as a world id only when no error was recorded.
func FuzzWorldField(f *testing.F) {
	for _, seed := range []string{`"1"`, `null`, `0`, `"0"`, `"-1"`, `1.5`, `"99999999999999999999"`, `{}`, `[]`, `true`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var v any
		if json.Unmarshal([]byte(raw), &v) != nil {
			return
		}
		form := NewForm(map[string]any{"world_id": v})
		id, _ := WorldField(form)
		if form.Err() != nil && id != 0 {
			t.Fatalf("world_id %s: id %d with errors %v", raw, id, form.Err())
		}
	})
}
