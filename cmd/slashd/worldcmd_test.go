package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestWorldExportImportCLI drives `slashd world import` and `world
// export` through the binary: an import is refused whole (a bad spec, a
// name taken) and leaves nothing; an export file is the spec whole, with
// no temporary file left; an exported world imported under another name
// exports the same; and both work beside a running server, which sees
// what the CLI made and whose changes the CLI exports.
func TestWorldExportImportCLI(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL")
	}
	dir, files := t.TempDir(), t.TempDir()
	spec := filepath.Join(files, "ban.json")
	if err := os.WriteFile(spec, []byte(worldJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	data := []string{"SLASHD_DATA=" + dir}
	run := func(wantCode int, args ...string) (string, string) {
		t.Helper()
		out, errOut, code := runBinary(t, data, args...)
		if code != wantCode {
			t.Fatalf("slashd %q: exit %d, want %d\nstdout %s\nstderr %s", args, code, wantCode, out, errOut)
		}
		return out, errOut
	}

	// No store yet: refused without --init.
	if _, errOut := run(1, "world", "import", spec); !strings.Contains(errOut, "--init") {
		t.Errorf("import without a store: %s", errOut)
	}
	if out, _ := run(0, "world", "import", "--init", spec); !strings.HasPrefix(out, "world ban-tests imported (id ") {
		t.Errorf("import: %s", out)
	}
	if _, errOut := run(1, "world", "import", spec); !strings.Contains(errOut, `a world named "ban-tests" is already in the store`) {
		t.Errorf("import of a name taken: %s", errOut)
	}
	bad := filepath.Join(files, "bad.json")
	badSpec := strings.Replace(strings.Replace(worldJSON, `"name": "ban-tests"`, `"name": "bad"`, 1), `"owner": "alice"`, `"owner": "zed"`, 1)
	if err := os.WriteFile(bad, []byte(badSpec), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errOut := run(1, "world", "import", bad); !strings.Contains(errOut, "guilds.club.owner: UNKNOWN_USER") {
		t.Errorf("import of a bad spec: %s", errOut)
	}
	if _, errOut := run(1, "world", "export", "bad"); !strings.Contains(errOut, `no world "bad"`) {
		t.Errorf("a refused import left a world: %s", errOut)
	}

	// YAML by its name; --json answers the world object.
	yamlSpec := filepath.Join(files, "second.yaml")
	if err := os.WriteFile(yamlSpec, []byte(worldYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, _ := run(0, "world", "import", "--json", yamlSpec); !strings.Contains(out, `"client_token"`) {
		t.Errorf("import --json: %s", out)
	}

	// Export to stdout and to a file: the same bytes, no temporary left.
	stdout, _ := run(0, "world", "export", "ban-tests")
	outFile := filepath.Join(files, "out", "exported.json")
	if err := os.Mkdir(filepath.Dir(outFile), 0o700); err != nil {
		t.Fatal(err)
	}
	run(0, "world", "export", "-o", outFile, "ban-tests")
	written, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	if string(written) != stdout {
		t.Fatalf("the file differs from stdout:\n%s\n%s", written, stdout)
	}
	if entries, _ := os.ReadDir(filepath.Dir(outFile)); len(entries) != 1 {
		t.Errorf("the export's directory holds %d files, want 1", len(entries))
	}
	var doc map[string]any
	if err := json.Unmarshal(written, &doc); err != nil || doc["name"] != "ban-tests" {
		t.Fatalf("export: %v %s", err, written)
	}
	// A directory that does not exist: an error, no file.
	if _, errOut := run(1, "world", "export", "-o", filepath.Join(files, "nowhere", "x.json"), "ban-tests"); !strings.Contains(errOut, "nowhere") {
		t.Errorf("export to a missing directory: %s", errOut)
	}

	// A server runs on the directory: the CLI imports the export under
	// another name, the server sees it and changes it, the CLI exports
	// the change.
	p, _ := serveWith(t, dir, nil)
	tokOut, _ := run(0, "admin-token", "--json")
	var tok struct {
		AdminToken string `json:"admin_token"`
	}
	if err := json.Unmarshal([]byte(tokOut), &tok); err != nil {
		t.Fatal(err)
	}
	admin := tok.AdminToken
	run(0, "world", "import", "--name", "ban-copy", outFile)
	status, body := call(t, "GET", p.url+"/admin/v1/worlds/ban-copy", "Admin "+admin, "")
	if status != 200 {
		t.Fatalf("the server does not see the import: %d %s", status, body)
	}
	copied, _ := run(0, "world", "export", "ban-copy")
	if want := strings.Replace(stdout, `"name": "ban-tests"`, `"name": "ban-copy"`, 1); copied != want {
		t.Fatalf("the copy's export differs:\n%s\nwant\n%s", copied, want)
	}
	var w struct {
		Guilds map[string]struct{ ID string } `json:"guilds"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		t.Fatal(err)
	}
	if status, body := call(t, "POST", p.url+"/admin/v1/guilds/"+w.Guilds["club"].ID+"/roles", "Admin "+admin,
		`{"name": "late role"}`); status != 201 {
		t.Fatalf("create a role: %d %s", status, body)
	}
	changed, _ := run(0, "world", "export", "--output", "-", "ban-copy")
	if !strings.Contains(changed, `"late-role": {`) || !strings.Contains(changed, `"name": "late role"`) {
		t.Errorf("the export misses the server's change:\n%s", changed)
	}
	// The HTTP export says the same.
	status, body = call(t, "GET", p.url+"/admin/v1/worlds/ban-copy/export", "Admin "+admin, "")
	var viaHTTP, viaCLI any
	if status != 200 || json.Unmarshal(body, &viaHTTP) != nil || json.Unmarshal([]byte(changed), &viaCLI) != nil {
		t.Fatalf("HTTP export: %d %s", status, body)
	}
	a, _ := json.Marshal(viaHTTP)
	b, _ := json.Marshal(viaCLI)
	if !bytes.Equal(a, b) {
		t.Errorf("the CLI's export differs from the admin API's:\n%s\n%s", b, a)
	}

	// Usage errors exit 2; the help lists the verbs.
	run(2, "world", "export")
	help, _ := run(0, "help")
	if !strings.Contains(help, "world export") || !strings.Contains(help, "world import") {
		t.Errorf("help lacks the world verbs:\n%s", help)
	}
}
