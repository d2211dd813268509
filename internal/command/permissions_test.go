package command_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
)

func TestParsePermissions(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []command.Permission
		errs       string
	}{
		{name: "valid", body: `{"permissions":[{"id":"10","type":1,"permission":true},{"id":"20","type":2,"permission":false},` +
			`{"id":"30","type":3,"permission":true}]}`,
			want: []command.Permission{{ID: 10, Type: 1, Permission: true}, {ID: 20, Type: 2}, {ID: 30, Type: 3, Permission: true}}},
		{name: "empty", body: `{"permissions":[]}`, want: []command.Permission{}},
		{name: "later entry replaces earlier", body: `{"permissions":[{"id":"10","type":1,"permission":true},` +
			`{"id":"11","type":1,"permission":true},{"id":"10","type":1,"permission":false}]}`,
			want: []command.Permission{{ID: 10, Type: 1}, {ID: 11, Type: 1, Permission: true}}},
		{name: "missing", body: `{}`, errs: tree(required("permissions"))},
		{name: "not a list", body: `{"permissions":{}}`,
			errs: tree(leaf{"permissions", "LIST_TYPE_CONVERT", "Only iterables may be used in a ListType."})},
		{name: "element not object", body: `{"permissions":["*"]}`,
			errs: tree(leaf{"permissions.0", "MODEL_TYPE_CONVERT", "Expected an object/dictionary."})},
		{name: "element null", body: `{"permissions":[null]}`,
			errs: tree(leaf{"permissions.0", "LIST_ITEM_VALUE_REQUIRED", "List item values of ModelType are required"})},
		{name: "fields missing", body: `{"permissions":[{}]}`,
			errs: tree(required("permissions.0.id"), required("permissions.0.type"), required("permissions.0.permission"))},
		{name: "bad fields", body: `{"permissions":[{"id":"x","type":4,"permission":"yes"}]}`,
			errs: tree(leaf{"permissions.0.id", "NUMBER_TYPE_COERCE", `Value "x" is not snowflake.`},
				choices("permissions.0.type", "(1, 2, 3)"), notBool("permissions.0.permission"))},
		{name: "over 100", body: func() string {
			var es []string
			for i := 0; i < 101; i++ {
				es = append(es, fmt.Sprintf(`{"id":"%d","type":2,"permission":true}`, i+1))
			}
			return `{"permissions":[` + strings.Join(es, ",") + `]}`
		}(), errs: tree(maxLength("permissions", 100))},
		{name: "body not object", body: `[]`, errs: tree(leaf{"", "MODEL_TYPE_CONVERT", "Expected an object/dictionary."})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := form.DecodeJSON([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			got, errs := command.ParsePermissions(v)
			if tc.errs != "" {
				b, _ := json.Marshal(errs)
				if !sameJSON(t, string(b), tc.errs) {
					t.Fatalf("errors\n got %s\nwant %s", b, tc.errs)
				}
				return
			}
			if !errs.Empty() {
				b, _ := json.Marshal(errs)
				t.Fatalf("errors %s", b)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	if command.AllChannelsID(500) != 499 {
		t.Error("constant ids")
	}
}
