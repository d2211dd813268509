package admin

import (
	"encoding/json"
	"testing"

	"github.com/slashd/slashd/internal/snowflake"
)

// TestFormReaders: the admin API's own readers, which the CLI shares:
// integers also as strings in float form, ids never 0, lists checked at
// each index.
func TestFormReaders(t *testing.T) {
	t.Parallel()
	f := NewForm(map[string]any{
		"float":   "1e3",
		"number":  json.Number("7"),
		"words":   "seven",
		"low":     "0",
		"zero":    "0",
		"id":      "1234567890123456789",
		"ids":     []any{"1", "x", "0"},
		"perms":   "9007199254740992",
		"choice":  "4",
		"missing": nil,
	})
	if n, ok := f.Integer("float", 0, 2000); !ok || n != 1000 {
		t.Errorf(`Integer("1e3") = %d, %v`, n, ok)
	}
	if n, ok := f.Integer("number", 0, 10); !ok || n != 7 {
		t.Errorf("Integer(7) = %d, %v", n, ok)
	}
	if _, ok := f.Integer("words", 0, 10); ok {
		t.Error(`Integer("seven") taken`)
	}
	if _, ok := f.Integer("low", 1, 10); ok {
		t.Error("Integer below its minimum taken")
	}
	if _, ok := f.ID("zero"); ok {
		t.Error("ID 0 taken")
	}
	if id, ok := f.ID("id"); !ok || id != snowflake.ID(1234567890123456789) {
		t.Errorf("ID = %v, %v", id, ok)
	}
	if ids, ok := f.IDs("ids"); ok || len(ids) != 3 || ids[0] != 1 {
		t.Errorf("IDs = %v, %v; want the list with errors at 1 and 2", ids, ok)
	}
	if _, ok := f.Perms("perms"); ok {
		t.Error("permissions beyond 2^53-1 taken")
	}
	if c, ok := f.OneOf("choice", []int{0, 4}); !ok || c != 4 {
		t.Errorf("OneOf = %d, %v", c, ok)
	}
	if _, ok := f.Integer("missing", 0, 1); ok {
		t.Error("a null taken")
	}
	err := f.Err()
	if err == nil {
		t.Fatal("no error recorded")
	}
	b, _ := json.Marshal(err)
	want := `{"message":"Invalid Form Body","code":50035,"errors":{` +
		`"ids":{"1":{"_errors":[{"code":"NUMBER_TYPE_COERCE","message":"Value \"x\" is not snowflake."}]},` +
		`"2":{"_errors":[{"code":"NUMBER_TYPE_COERCE","message":"Value \"0\" is not snowflake."}]}},` +
		`"low":{"_errors":[{"code":"NUMBER_TYPE_MIN","message":"int value should be greater than or equal to 1."}]},` +
		`"perms":{"_errors":[{"code":"NUMBER_TYPE_MAX","message":"int value should be less than or equal to 9007199254740991."}]},` +
		`"words":{"_errors":[{"code":"NUMBER_TYPE_COERCE","message":"Value \"seven\" is not int."}]},` +
		`"zero":{"_errors":[{"code":"NUMBER_TYPE_COERCE","message":"Value \"0\" is not snowflake."}]}}}`
	if string(b) != want {
		t.Errorf("errors:\n%s\nwant\n%s", b, want)
	}
}
