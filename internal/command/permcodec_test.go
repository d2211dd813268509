package command_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/slashd/slashd/internal/command"
)

func TestDecodePermissionsMatchesEncodingJSON(t *testing.T) {
	lists := [][]command.Permission{
		{},
		{{ID: 1, Type: 1, Permission: true}},
		{{ID: 1573856744159838208, Type: 3, Permission: false}, {ID: 7, Type: 2, Permission: true}},
	}
	for _, l := range lists {
		b, _ := json.Marshal(l)
		got, err := command.DecodePermissions(b)
		if err != nil || !reflect.DeepEqual(got, l) {
			t.Errorf("DecodePermissions(%s) = %+v, %v", b, got, err)
		}
	}
	for _, odd := range []string{`[ {"id":"5","type":1,"permission":true} ]`, `[{"type":1,"id":"5","permission":false}]`} {
		var want []command.Permission
		if err := json.Unmarshal([]byte(odd), &want); err != nil {
			t.Fatal(err)
		}
		if got, err := command.DecodePermissions([]byte(odd)); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("fallback for %s: %+v, %v", odd, got, err)
		}
	}
	if _, err := command.DecodePermissions([]byte(`[{"id":"x"`)); err == nil {
		t.Error("no error for a broken list")
	}
}

func FuzzDecodePermissions(f *testing.F) {
	f.Add([]byte(`[{"id":"1","type":1,"permission":true},{"id":"2","type":3,"permission":false}]`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`[{"id":"01","type":1,"permission":true}]`))
	f.Add([]byte(`[{"id":"1","type":+1,"permission":true}]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := command.DecodePermissions(b)
		var want []command.Permission
		wantErr := json.Unmarshal(b, &want)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("DecodePermissions(%q) err %v; encoding/json err %v", b, err, wantErr)
		}
		if err == nil && len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodePermissions(%q) = %+v; encoding/json = %+v", b, got, want)
		}
	})
}
