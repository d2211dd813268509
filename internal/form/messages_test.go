package form_test

import (
	"encoding/json"
	"testing"

	"github.com/slashd/slashd/internal/form"
)

func TestRepr(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
	}{
		{nil, "None"},
		{true, "True"},
		{false, "False"},
		{"", ""},
		{"abc", "abc"},
		{`say "hi"`, `say "hi"`},
		{json.Number("1.5"), "1.5"},
		{json.Number("-0"), "-0"},
		{json.Number("9007199254740993"), "9007199254740993"},
		{json.Number("1e400"), "1e400"},
		{map[string]any{}, "{}"},
		{map[string]any{"a": 1}, "{...}"},
		{[]any{}, "[]"},
		{[]any{nil}, "[...]"},
	} {
		if got := form.Repr(tc.v); got != tc.want {
			t.Errorf("Repr(%#v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestTupleMessages(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{form.Tuple([]int{}), "()"},
		{form.Tuple([]int{1}), "(1,)"},
		{form.Tuple([]int{0, 1, 2}), "(0, 1, 2)"},
		{form.Tuple([]string{"da"}), "('da',)"},
		{form.Tuple([]string{"client", "bearer"}), "('client', 'bearer')"},
		{form.MsgChoicesOf([]int{1, 2, 3, 4}), "Value must be one of (1, 2, 3, 4)."},
		{form.MsgChoicesOf([]int{1}), "Value must be one of (1,)."},
		{form.MsgChoicesOf([]string{"client", "bearer"}), "Value must be one of ('client', 'bearer')."},
		{form.MsgUnionChoices("type", []int{1}), `Value of field "type" must be one of (1,).`},
		{form.MsgUnionChoices("type", []int{3, 4}), `Value of field "type" must be one of (3, 4).`},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestMessages(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{form.MsgBadLength(1, 32), "Must be between 1 and 32 in length."},
		{form.MsgMaxLength(25), "Must be 25 or fewer in length."},
		{form.MsgMinLength(1), "Must be 1 or more in length."},
		{form.MsgNotString(json.Number("1")), `Could not interpret "1" as string.`},
		{form.MsgNotString([]any{"a"}), `Could not interpret "[...]" as string.`},
		{form.MsgNotInt("x"), `Value "x" is not int.`},
		{form.MsgNotInt(true), `Value "True" is not int.`},
		{form.MsgNotNumber(nil), `Value "None" is not a valid number.`},
		{form.MsgNotSnowflake(map[string]any{}), `Value "{}" is not snowflake.`},
		{form.MsgNotSnowflake(`a"b`), `Value "a\"b" is not snowflake.`},
		{form.MsgIntMax(6000), "int value should be less than or equal to 6000."},
		{form.MsgIntMin(-9007199254740991), "int value should be greater than or equal to -9007199254740991."},
		{form.MsgFloatMax(1 << 53), "float value should be less than or equal to 9007199254740992."},
		{form.MsgFloatMin(-0.5), "float value should be greater than or equal to -0.5."},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
