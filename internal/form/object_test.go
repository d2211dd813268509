package form_test

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
)

func TestDecodeJSON(t *testing.T) {
	for _, bad := range []string{``, ` `, `{`, `{} {}`, `{}x`, `nul`, `[1,]`, `{"a":1,}`, `01`, "\"\x00\""} {
		if v, err := form.DecodeJSON([]byte(bad)); err != form.ErrInvalidJSON {
			t.Errorf("DecodeJSON(%q) = %#v, %v; want ErrInvalidJSON", bad, v, err)
		}
	}
	for _, tc := range []struct {
		body string
		want any
	}{
		{" {\"a\": 9007199254740993}\n", map[string]any{"a": json.Number("9007199254740993")}},
		{`[1.50, "x", null, true, {}]`, []any{json.Number("1.50"), "x", nil, true, map[string]any{}}},
		{`null`, nil},
		{`"s"`, "s"},
	} {
		v, err := form.DecodeJSON([]byte(tc.body))
		if err != nil || !reflect.DeepEqual(v, tc.want) {
			t.Errorf("DecodeJSON(%q) = %#v, %v; want %#v", tc.body, v, err, tc.want)
		}
	}
}

// object decodes body, which must be a JSON object, into a fresh Object.
func object(t *testing.T, body string) (form.Object, *apierr.Fields) {
	t.Helper()
	v, err := form.DecodeJSON([]byte(body))
	if err != nil {
		t.Fatalf("DecodeJSON(%s): %v", body, err)
	}
	errs := &apierr.Fields{}
	o, ok := form.AsObject(v, errs)
	if !ok {
		t.Fatalf("%s is not an object", body)
	}
	return o, errs
}

// errJSON renders an error tree, "{}" when it is empty.
func errJSON(t *testing.T, errs *apierr.Fields) string {
	t.Helper()
	b, err := json.Marshal(errs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAsObject(t *testing.T) {
	for _, tc := range []struct {
		body string
		ok   bool
		errs string
	}{
		{`{}`, true, `{}`},
		{`{"a":null}`, true, `{}`},
		{`null`, false, `{"_errors":[{"code":"LIST_ITEM_VALUE_REQUIRED","message":"List item values of ModelType are required"}]}`},
		{`[]`, false, `{"_errors":[{"code":"MODEL_TYPE_CONVERT","message":"Expected an object/dictionary."}]}`},
		{`"{}"`, false, `{"_errors":[{"code":"MODEL_TYPE_CONVERT","message":"Expected an object/dictionary."}]}`},
		{`0`, false, `{"_errors":[{"code":"MODEL_TYPE_CONVERT","message":"Expected an object/dictionary."}]}`},
	} {
		v, _ := form.DecodeJSON([]byte(tc.body))
		errs := &apierr.Fields{}
		_, ok := form.AsObject(v, errs)
		if got := errJSON(t, errs); ok != tc.ok || got != tc.errs {
			t.Errorf("AsObject(%s) = %v, %s; want %v, %s", tc.body, ok, got, tc.ok, tc.errs)
		}
	}
}

func TestPresence(t *testing.T) {
	o, errs := object(t, `{"v":0,"n":null}`)
	for _, tc := range []struct {
		key                  string
		present, has, isNull bool
	}{
		{"v", true, true, false},
		{"n", false, true, true},
		{"x", false, false, false},
	} {
		if got := o.Present(tc.key); got != tc.present {
			t.Errorf("Present(%q) = %v", tc.key, got)
		}
		if got := o.Has(tc.key); got != tc.has {
			t.Errorf("Has(%q) = %v", tc.key, got)
		}
		if got := o.Null(tc.key); got != tc.isNull {
			t.Errorf("Null(%q) = %v", tc.key, got)
		}
		if _, ok := o.Value(tc.key); ok != tc.present {
			t.Errorf("Value(%q) ok = %v", tc.key, ok)
		}
		if ok := o.Require(tc.key); ok != tc.present {
			t.Errorf("Require(%q) = %v", tc.key, ok)
		}
	}
	const required = `{"_errors":[{"code":"BASE_TYPE_REQUIRED","message":"This field is required"}]}`
	if got, want := errJSON(t, errs), `{"n":`+required+`,"x":`+required+`}`; got != want {
		t.Errorf("Require errors %s, want %s", got, want)
	}
	if o.At() != errs {
		t.Error("At() is not the object's own node")
	}
	o.At("a", 1).Add("CODE", "message")
	if leaves := errs.At("a", 1).Leaves(); len(leaves) != 1 || leaves[0].Code != "CODE" {
		t.Errorf("an error added at At(path) is %v at the object's path, want it there", leaves)
	}
	if err, ok := apierr.As(o.Err()); !ok || err.Code != apierr.CodeInvalidFormBody {
		t.Errorf("Err() = %v, want the 50035 error", o.Err())
	}
	if o, _ := object(t, `{}`); o.Err() != nil {
		t.Errorf("Err() of no errors = %v", o.Err())
	}
}

// leaf is the error tree of one error at key "v".
func leaf(code, message string) string {
	b, _ := json.Marshal(map[string]any{"v": map[string]any{"_errors": []apierr.Leaf{{Code: code, Message: message}}}})
	return string(b)
}

func TestReaders(t *testing.T) {
	var (
		str       = func(o form.Object) (any, bool) { return o.Str("v") }
		strLen    = func(o form.Object) (any, bool) { return o.StrLen("v", 2, 3) }
		boolean   = func(o form.Object) (any, bool) { return o.Bool("v") }
		integer   = func(o form.Object) (any, bool) { return o.Int("v") }
		intIn     = func(o form.Object) (any, bool) { return o.IntIn("v", -1, 10) }
		choice    = func(o form.Object) (any, bool) { return o.Choice("v", []int{1, 3}) }
		list      = func(o form.Object) (any, bool) { return o.List("v") }
		dict      = func(o form.Object) (any, bool) { return o.Dict("v") }
		flake     = func(o form.Object) (any, bool) { return o.Snowflake("v") }
		intList   = func(o form.Object) (any, bool) { return o.IntList("v", []int{0, 1, 2}) }
		notString = func(v string) string { return leaf("STRING_TYPE_CONVERT", `Could not interpret "`+v+`" as string.`) }
		notInt    = func(v string) string { return leaf("NUMBER_TYPE_COERCE", `Value "`+v+`" is not int.`) }
		notFlake  = func(v string) string { return leaf("NUMBER_TYPE_COERCE", `Value "`+v+`" is not snowflake.`) }
		notBool   = leaf("BOOLEAN_TYPE_CONVERT", "Must be either true or false.")
		notList   = leaf("LIST_TYPE_CONVERT", "Only iterables may be used in a ListType.")
		notDict   = leaf("DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType.")
	)
	for _, tc := range []struct {
		name  string
		read  func(form.Object) (any, bool)
		value string // the JSON of "v"; "" for absent
		want  any
		ok    bool
		errs  string
	}{
		// Absent and null are never errors: the caller decides.
		{"str absent", str, "", "", false, `{}`},
		{"str null", str, `null`, "", false, `{}`},
		{"str", str, `"héllo"`, "héllo", true, `{}`},
		{"str empty", str, `""`, "", true, `{}`},
		{"str number", str, `12`, "", false, notString("12")},
		{"str bool", str, `false`, "", false, notString("False")},
		{"str list", str, `["a"]`, "", false, notString("[...]")},
		{"str object", str, `{}`, "", false, notString("{}")},

		{"strLen fits", strLen, `"née"`, "née", true, `{}`}, // 3 code points, 4 bytes
		{"strLen short", strLen, `"a"`, "", false, leaf("BASE_TYPE_BAD_LENGTH", "Must be between 2 and 3 in length.")},
		{"strLen long", strLen, `"abcd"`, "", false, leaf("BASE_TYPE_BAD_LENGTH", "Must be between 2 and 3 in length.")},
		{"strLen not string", strLen, `1`, "", false, notString("1")},
		{"strLen null", strLen, `null`, "", false, `{}`},

		{"bool true", boolean, `true`, true, true, `{}`},
		{"bool false", boolean, `false`, false, true, `{}`},
		{"bool string", boolean, `"true"`, false, false, notBool},
		{"bool number", boolean, `1`, false, false, notBool},
		{"bool null", boolean, `null`, false, false, `{}`},

		{"int", integer, `42`, int64(42), true, `{}`},
		{"int negative", integer, `-7`, int64(-7), true, `{}`},
		{"int digits string", integer, `"42"`, int64(42), true, `{}`},
		{"int integral float", integer, `4.0`, int64(4), true, `{}`},
		{"int exponent", integer, `1e3`, int64(1000), true, `{}`},
		{"int 2^53 float", integer, `9007199254740992.0`, int64(1 << 53), true, `{}`},
		{"int beyond 2^53 float", integer, `1e16`, int64(0), false, notInt("1e16")},
		{"int max int64", integer, `9223372036854775807`, int64(math.MaxInt64), true, `{}`},
		{"int fraction", integer, `1.5`, int64(0), false, notInt("1.5")},
		{"int float string", integer, `"1.0"`, int64(0), false, notInt("1.0")},
		{"int word", integer, `"ten"`, int64(0), false, notInt("ten")},
		{"int bool", integer, `true`, int64(0), false, notInt("True")},
		{"int list", integer, `[1]`, int64(0), false, notInt("[...]")},
		{"int null", integer, `null`, int64(0), false, `{}`},

		{"intIn", intIn, `10`, int64(10), true, `{}`},
		{"intIn min", intIn, `"-1"`, int64(-1), true, `{}`},
		{"intIn below", intIn, `-2`, int64(0), false, leaf("NUMBER_TYPE_MIN", "int value should be greater than or equal to -1.")},
		{"intIn above", intIn, `11`, int64(0), false, leaf("NUMBER_TYPE_MAX", "int value should be less than or equal to 10.")},
		{"intIn not int", intIn, `"x"`, int64(0), false, notInt("x")},

		{"choice", choice, `3`, 3, true, `{}`},
		{"choice string", choice, `"1"`, 1, true, `{}`},
		{"choice other", choice, `2`, 0, false, leaf("BASE_TYPE_CHOICES", "Value must be one of (1, 3).")},
		{"choice beyond int32", choice, `4294967297`, 0, false, leaf("BASE_TYPE_CHOICES", "Value must be one of (1, 3).")},
		{"choice not int", choice, `{"a":1}`, 0, false, notInt("{...}")},

		{"list", list, `[1,null]`, []any{json.Number("1"), nil}, true, `{}`},
		{"list empty", list, `[]`, []any{}, true, `{}`},
		{"list string", list, `"a,b"`, []any(nil), false, notList},
		{"list object", list, `{}`, []any(nil), false, notList},

		{"dict", dict, `{"de":"x"}`, map[string]any{"de": "x"}, true, `{}`},
		{"dict list", dict, `[]`, map[string]any(nil), false, notDict},
		{"dict string", dict, `"{}"`, map[string]any(nil), false, notDict},

		{"snowflake string", flake, `"1234567890123456789"`, snowflake.ID(1234567890123456789), true, `{}`},
		{"snowflake number", flake, `42`, snowflake.ID(42), true, `{}`},
		{"snowflake zero", flake, `"0"`, snowflake.ID(0), true, `{}`},
		{"snowflake max", flake, `"18446744073709551615"`, snowflake.ID(math.MaxUint64), true, `{}`},
		{"snowflake overflow", flake, `"18446744073709551616"`, snowflake.ID(0), false, notFlake("18446744073709551616")},
		{"snowflake word", flake, `"abc"`, snowflake.ID(0), false, notFlake("abc")},
		{"snowflake negative", flake, `-1`, snowflake.ID(0), false, notFlake("-1")},
		{"snowflake leading zero", flake, `"01"`, snowflake.ID(0), false, notFlake("01")},
		{"snowflake float", flake, `1.0`, snowflake.ID(0), false, notFlake("1.0")},
		{"snowflake bool", flake, `true`, snowflake.ID(0), false, notFlake("True")},

		{"intList", intList, `[2,"0",2,1.0]`, []int{2, 0, 1}, true, `{}`},
		{"intList empty", intList, `[]`, []int{}, true, `{}`},
		{"intList not list", intList, `0`, []int(nil), false, notList},
		{"intList bad items", intList, `[1,"x",5,null,0]`, []int{1, 0}, false,
			`{"v":{"1":{"_errors":[{"code":"NUMBER_TYPE_COERCE","message":"Value \"x\" is not int."}]},` +
				`"2":{"_errors":[{"code":"BASE_TYPE_CHOICES","message":"Value must be one of (0, 1, 2)."}]},` +
				`"3":{"_errors":[{"code":"NUMBER_TYPE_COERCE","message":"Value \"None\" is not int."}]}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{}`
			if tc.value != "" {
				body = `{"v":` + tc.value + `}`
			}
			o, errs := object(t, body)
			got, ok := tc.read(o)
			if !reflect.DeepEqual(got, tc.want) || ok != tc.ok {
				t.Errorf("read %s = %#v, %v; want %#v, %v", body, got, ok, tc.want, tc.ok)
			}
			if e := errJSON(t, errs); e != tc.errs {
				t.Errorf("errors of %s\n got %s\nwant %s", body, e, tc.errs)
			}
		})
	}
}

func TestValueReaders(t *testing.T) {
	for _, tc := range []struct {
		name string
		read func(at *apierr.Fields) (any, bool)
		want any
		ok   bool
		errs string
	}{
		{"IntValue", func(at *apierr.Fields) (any, bool) { return form.IntValue(json.Number("5"), 0, 5, at) }, int64(5), true, `{}`},
		{"IntValue max", func(at *apierr.Fields) (any, bool) { return form.IntValue("6", 0, 5, at) }, int64(0), false,
			`{"_errors":[{"code":"NUMBER_TYPE_MAX","message":"int value should be less than or equal to 5."}]}`},
		{"ChoiceValue", func(at *apierr.Fields) (any, bool) { return form.ChoiceValue(json.Number("2e0"), []int{2}, at) }, 2, true, `{}`},
		{"ChoiceValue one choice", func(at *apierr.Fields) (any, bool) { return form.ChoiceValue("1", []int{2}, at) }, 0, false,
			`{"_errors":[{"code":"BASE_TYPE_CHOICES","message":"Value must be one of (2,)."}]}`},
		{"SnowflakeValue", func(at *apierr.Fields) (any, bool) { return form.SnowflakeValue("7", at) }, snowflake.ID(7), true, `{}`},
		{"SnowflakeValue nil", func(at *apierr.Fields) (any, bool) { return form.SnowflakeValue(nil, at) }, snowflake.ID(0), false,
			`{"_errors":[{"code":"NUMBER_TYPE_COERCE","message":"Value \"None\" is not snowflake."}]}`},
	} {
		at := &apierr.Fields{}
		got, ok := tc.read(at)
		if !reflect.DeepEqual(got, tc.want) || ok != tc.ok {
			t.Errorf("%s = %#v, %v; want %#v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
		if e := errJSON(t, at); e != tc.errs {
			t.Errorf("%s errors\n got %s\nwant %s", tc.name, e, tc.errs)
		}
	}
}

func TestToFloat(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want float64
		ok   bool
	}{
		{json.Number("1.5"), 1.5, true},
		{json.Number("-1e-300"), -1e-300, true},
		{"2.25", 2.25, true},
		{json.Number("1e400"), 0, false}, // infinite
		{"NaN", 0, false},
		{"Inf", 0, false},
		{"x", 0, false},
		{true, 0, false},
		{nil, 0, false},
	} {
		if got, ok := form.ToFloat(tc.v); got != tc.want || ok != tc.ok {
			t.Errorf("ToFloat(%#v) = %v, %v; want %v, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}

func TestNumberText(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want string
		ok   bool
	}{
		{json.Number("18446744073709551615"), "18446744073709551615", true},
		{"8", "8", true},
		{"", "", true},
		{true, "", false},
		{nil, "", false},
		{[]any{"1"}, "", false},
	} {
		if got, ok := form.NumberText(tc.v); got != tc.want || ok != tc.ok {
			t.Errorf("NumberText(%#v) = %q, %v; want %q, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}
