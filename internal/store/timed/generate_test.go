package timed

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite methods.go from store.Store's declaration")

// generatedFile holds the wrapper's methods.
const generatedFile = "methods.go"

// TestGeneratedWrapperIsCurrent regenerates the wrapper's methods from
// internal/store/store.go and compares them with methods.go (with
// -update: writes them), so that every method of the interface is timed.
func TestGeneratedWrapperIsCurrent(t *testing.T) {
	src, err := generate("../store.go", "../worlds.go", "../files.go")
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(generatedFile, src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(generatedFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, src) {
		t.Fatalf("%s is out of date with store.Store: run go generate ./internal/store/timed", generatedFile)
	}
}

// method is one method of the interface, its types written as the
// wrapper's package sees them.
type method struct {
	name    string
	params  []string // types; a variadic one starts with "..."
	results []string
}

// generate reads the Store interface (and the interfaces it embeds) from
// the store package's source files that declare them and writes a timed
// method for each.
func generate(storeFiles ...string) ([]byte, error) {
	fset := token.NewFileSet()
	ifaces := map[string]*ast.InterfaceType{}
	imports := map[string]string{} // package name → path, for those used
	for _, name := range storeFiles {
		file, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		declaredInterfaces(file, ifaces)
		for _, imp := range file.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			imports[path[strings.LastIndex(path, "/")+1:]] = path
		}
	}
	var methods []method
	if err := collect(fset, ifaces, "Store", &methods); err != nil {
		return nil, err
	}
	return render(methods, imports)
}

// declaredInterfaces adds the interfaces file declares to ifaces.
func declaredInterfaces(file *ast.File, ifaces map[string]*ast.InterfaceType) {
	for _, d := range file.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, sp := range gd.Specs {
			ts := sp.(*ast.TypeSpec)
			if it, ok := ts.Type.(*ast.InterfaceType); ok {
				ifaces[ts.Name.Name] = it
			}
		}
	}
}

// collect appends the methods of interface name, embedded ones first
// where they are embedded, skipping Close (not an operation).
func collect(fset *token.FileSet, ifaces map[string]*ast.InterfaceType, name string, out *[]method) error {
	it, ok := ifaces[name]
	if !ok {
		return fmt.Errorf("no interface %s in the store package", name)
	}
	for _, f := range it.Methods.List {
		switch typ := f.Type.(type) {
		case *ast.Ident: // an embedded interface of the package
			if err := collect(fset, ifaces, typ.Name, out); err != nil {
				return err
			}
		case *ast.FuncType:
			if f.Names[0].Name == "Close" {
				continue
			}
			m := method{name: f.Names[0].Name}
			m.params = fieldTypes(fset, typ.Params)
			m.results = fieldTypes(fset, typ.Results)
			*out = append(*out, m)
		default:
			return fmt.Errorf("%s: unexpected %T in the interface", name, typ)
		}
	}
	return nil
}

// fieldTypes lists a field list's types, one per name, with the store
// package's own types qualified.
func fieldTypes(fset *token.FileSet, fl *ast.FieldList) []string {
	if fl == nil {
		return nil
	}
	var out []string
	for _, f := range fl.List {
		typ := qualify(f.Type)
		var b bytes.Buffer
		_ = printer.Fprint(&b, fset, typ)
		for range max(len(f.Names), 1) {
			out = append(out, b.String())
		}
	}
	return out
}

// qualify rewrites the store package's exported identifiers in a type
// expression as store.X (selectors such as snowflake.ID stay).
func qualify(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.Ident:
		if ast.IsExported(x.Name) {
			return &ast.SelectorExpr{X: ast.NewIdent("store"), Sel: ast.NewIdent(x.Name)}
		}
		return x
	case *ast.SelectorExpr:
		return x
	case *ast.StarExpr:
		return &ast.StarExpr{X: qualify(x.X)}
	case *ast.ArrayType:
		return &ast.ArrayType{Len: x.Len, Elt: qualify(x.Elt)}
	case *ast.MapType:
		return &ast.MapType{Key: qualify(x.Key), Value: qualify(x.Value)}
	case *ast.Ellipsis:
		return &ast.Ellipsis{Elt: qualify(x.Elt)}
	case *ast.FuncType:
		return &ast.FuncType{Params: qualifyFields(x.Params), Results: qualifyFields(x.Results)}
	}
	panic(fmt.Sprintf("generate: unsupported type expression %T", e))
}

func qualifyFields(fl *ast.FieldList) *ast.FieldList {
	if fl == nil {
		return nil
	}
	out := &ast.FieldList{}
	for _, f := range fl.List {
		out.List = append(out.List, &ast.Field{Names: f.Names, Type: qualify(f.Type)})
	}
	return out
}

func render(methods []method, imports map[string]string) ([]byte, error) {
	var body bytes.Buffer
	used := map[string]bool{"time": true, "store": true}
	for _, m := range methods {
		var params, args []string
		for i, p := range m.params {
			arg := "a" + strconv.Itoa(i)
			params = append(params, arg+" "+p)
			if strings.HasPrefix(p, "...") {
				arg += "..."
			}
			args = append(args, arg)
			markUsed(p, used)
		}
		for _, r := range m.results {
			markUsed(r, used)
		}
		results := strings.Join(m.results, ", ")
		if len(m.results) > 1 {
			results = "(" + results + ")"
		}
		fmt.Fprintf(&body, "\nfunc (w *wrapper) %s(%s) %s {\n", m.name, strings.Join(params, ", "), results)
		fmt.Fprintf(&body, "\tdefer w.observe(%q, time.Now())\n", m.name)
		call := fmt.Sprintf("w.Store.%s(%s)", m.name, strings.Join(args, ", "))
		if len(m.results) == 0 {
			fmt.Fprintf(&body, "\t%s\n}\n", call)
		} else {
			fmt.Fprintf(&body, "\treturn %s\n}\n", call)
		}
	}
	imports["store"] = "github.com/slashd/slashd/internal/store"
	imports["time"] = "time"
	var paths []string
	for name := range used {
		path, ok := imports[name]
		if !ok {
			return nil, fmt.Errorf("generate: no import for package %s", name)
		}
		paths = append(paths, strconv.Quote(path))
	}
	slices.Sort(paths)
	var out bytes.Buffer
	out.WriteString("// Code generated by TestGeneratedWrapperIsCurrent -update; DO NOT EDIT.\n\npackage timed\n\nimport (\n")
	for _, std := range []bool{true, false} { // the standard library first, as goimports groups them
		if !std {
			out.WriteString("\n")
		}
		for _, p := range paths {
			if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") != std {
				fmt.Fprintf(&out, "\t%s\n", p)
			}
		}
	}
	out.WriteString(")\n")
	out.Write(body.Bytes())
	return format.Source(out.Bytes())
}

// markUsed records the packages a type expression names.
func markUsed(typ string, used map[string]bool) {
	for _, word := range strings.FieldsFunc(typ, func(r rune) bool {
		return !(r == '.' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if pkg, _, ok := strings.Cut(word, "."); ok {
			used[pkg] = true
		}
	}
}
