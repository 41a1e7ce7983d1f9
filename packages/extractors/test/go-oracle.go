// The Go compiler front end's view of Go files under the code extractor's rules (clarifications.md, "Code
// extractor" and its amendment): the definitions, which definition defines which, the names imports bind,
// and the callee name of each call attributed to the innermost function or method around it. Used as the
// oracle of test/oracle-go.test.ts, which runs it with `go run`.
//
//	go run go-oracle.go -sample N   facts for N files of GOROOT/src
//	go run go-oracle.go -- FILE...  facts for the given files (`--` ends the files go run compiles)
//
// The output is one JSON object a line: first {version, root}, then one per file.
//
// The sample: the non-test .go files of GOROOT/src outside testdata and cmd directories that go/build selects
// for the host's GOOS and GOARCH with cgo off, sorted by path, every k-th one (k = count / N, rounded down) from
// the first, so the same Go release always gives the same files.
//
// Each file's package is type-checked (go/types, imports from source) because one rule needs it: `F[T](x)` is
// a call of `F` when `T` are explicit type arguments, while `fns[i](x)` calls an element of `fns` and is no
// call of a name; only the type checker tells them apart (types.Info.Instances).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

type facts struct {
	File        string      `json:"file"`
	Module      string      `json:"module"`
	Definitions []string    `json:"definitions"`
	Defines     [][2]string `json:"defines"`
	Imports     []string    `json:"imports"`
	Calls       [][2]string `json:"calls"`
	// Explicit instantiations counted as calls, and index expressions called that are no instantiation.
	TypeArgumentCalls int    `json:"type_argument_calls"`
	IndexCalls        int    `json:"index_calls"`
	Skipped           string `json:"skipped,omitempty"`
}

// usable: the graph keeps the ASCII letters and digits of a name's NFD form, and a name without any is no node.
// Go's standard library has no NFD tables, so a name of non-ASCII characters only is undecided here; the file
// is then reported as skipped rather than guessed.
func usable(name string) (bool, bool) {
	ascii := true
	for _, r := range name {
		if r < utf8.RuneSelf {
			if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
				return true, true
			}
		} else {
			ascii = false
		}
	}
	return false, ascii
}

// assumedName is goimports' assumed package name of an import path (clarifications.md): the last element, the
// one before it when the last is `v<digits>`, a leading `go-` removed, cut at the first character that is not
// a letter, digit or underscore.
func assumedName(importPath string) string {
	base := path.Base(importPath)
	if len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		if dir := path.Dir(importPath); dir != "." {
			base = path.Base(dir)
		}
	}
	base = strings.TrimPrefix(base, "go-")
	if i := strings.IndexFunc(base, func(r rune) bool {
		return !(r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
	}); i >= 0 {
		base = base[:i]
	}
	return base
}

// receiverType: `(s *Server[T])` → Server.
func receiverType(expr ast.Expr) string {
	for {
		switch e := expr.(type) {
		case *ast.StarExpr:
			expr = e.X
		case *ast.ParenExpr:
			expr = e.X
		case *ast.IndexExpr:
			expr = e.X
		case *ast.IndexListExpr:
			expr = e.X
		case *ast.Ident:
			return e.Name
		default:
			return ""
		}
	}
}

// calleeName: the name a call names, if any: `f(x)` → f, `a.b.f(x)` → f, `F[T](x)` and `p.F[A, B](x)` → F
// when the brackets hold type arguments.
func calleeName(fun ast.Expr, info *types.Info) (name string, instantiated bool, indexed bool) {
	switch e := fun.(type) {
	case *ast.Ident:
		return e.Name, false, false
	case *ast.SelectorExpr:
		return e.Sel.Name, false, false
	case *ast.IndexExpr, *ast.IndexListExpr:
		var x ast.Expr
		if index, ok := e.(*ast.IndexExpr); ok {
			x = index.X
		} else {
			x = e.(*ast.IndexListExpr).X
		}
		var id *ast.Ident
		switch operand := x.(type) {
		case *ast.Ident:
			id = operand
		case *ast.SelectorExpr:
			id = operand.Sel
		default:
			return "", false, true
		}
		if _, ok := info.Instances[id]; ok {
			return id.Name, true, false
		}
		return "", false, true
	}
	return "", false, false
}

type scope struct {
	kind string // function, method, class
	name string
}

func fileFacts(file *ast.File, name string, info *types.Info) facts {
	stem := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	out := facts{File: name, Module: stem, Definitions: []string{}, Defines: [][2]string{}, Imports: []string{}, Calls: [][2]string{}}
	undecided := ""
	check := func(name string) bool {
		ok, decided := usable(name)
		if !decided && undecided == "" {
			undecided = name
		}
		return ok
	}

	for _, spec := range file.Imports {
		bound := ""
		if spec.Name != nil {
			if spec.Name.Name != "_" && spec.Name.Name != "." {
				bound = spec.Name.Name
			}
		} else if p, err := strconv.Unquote(spec.Path.Value); err == nil {
			bound = assumedName(p)
		}
		if bound != "" && check(bound) {
			out.Imports = append(out.Imports, bound)
		}
	}

	var caller *scope
	var owner *scope
	var visit func(node ast.Node) bool
	visit = func(node ast.Node) bool {
		switch n := node.(type) {
		case *ast.FuncDecl:
			if !check(n.Name.Name) {
				return true
			}
			definition := &scope{kind: "function", name: n.Name.Name}
			if n.Recv != nil {
				definition.kind = "method"
				if len(n.Recv.List) > 0 {
					if receiver := receiverType(n.Recv.List[0].Type); receiver != "" && check(receiver) {
						out.Defines = append(out.Defines, [2]string{receiver, n.Name.Name})
					}
				}
			} else {
				out.Defines = append(out.Defines, [2]string{stem, n.Name.Name})
			}
			out.Definitions = append(out.Definitions, definition.kind+":"+n.Name.Name)
			outerCaller, outerOwner := caller, owner
			caller, owner = definition, definition
			ast.Inspect(n.Type, visit)
			if n.Body != nil {
				ast.Inspect(n.Body, visit)
			}
			caller, owner = outerCaller, outerOwner
			return false
		case *ast.TypeSpec:
			if check(n.Name.Name) {
				out.Definitions = append(out.Definitions, "class:"+n.Name.Name)
				if owner == nil {
					out.Defines = append(out.Defines, [2]string{stem, n.Name.Name})
				}
			}
			// A type inside a function calls nothing itself: calls in it (array lengths) stay the function's.
			return true
		case *ast.CallExpr:
			callee, instantiated, indexed := calleeName(n.Fun, info)
			if instantiated {
				out.TypeArgumentCalls++
			}
			if indexed {
				out.IndexCalls++
			}
			if callee != "" && check(callee) {
				from := stem
				if caller != nil {
					from = caller.name
				}
				out.Calls = append(out.Calls, [2]string{from, callee})
			}
			return true
		}
		return true
	}
	for _, decl := range file.Decls {
		ast.Inspect(decl, visit)
	}
	if undecided != "" {
		return facts{File: name, Module: stem, Skipped: fmt.Sprintf("identifier %q has no ASCII letter or digit; deciding whether NFD gives it one needs tables Go's standard library lacks", undecided)}
	}
	return out
}

// sample lists GOROOT/src's eligible files and keeps every k-th.
func sample(n int) ([]string, error) {
	// Debian's GOROOT/src is a symbolic link: walk where it points, name files under GOROOT (go/build finds
	// the vendored packages of a file under GOROOT/src only).
	root := filepath.Join(build.Default.GOROOT, "src")
	resolved, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	var all []string
	dirs := map[string]bool{}
	err = filepath.WalkDir(resolved, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(resolved, p)
			if d.Name() == "testdata" || rel == "cmd" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") {
				return filepath.SkipDir
			}
			dirs[filepath.Join(root, rel)] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for dir := range dirs {
		pkg, err := build.Default.ImportDir(dir, 0)
		if err != nil {
			continue
		}
		for _, file := range pkg.GoFiles {
			all = append(all, filepath.Join(dir, file))
		}
	}
	sort.Strings(all)
	if n <= 0 || n >= len(all) {
		return all, nil
	}
	step := len(all) / n
	var picked []string
	for i := 0; i < len(all) && len(picked) < n; i += step {
		picked = append(picked, all[i])
	}
	return picked, nil
}

func main() {
	n := flag.Int("sample", 0, "facts for this many files of GOROOT/src")
	flag.Parse()
	// Packages with cgo files are type-checked without them, as go/build lists them with cgo off.
	build.Default.CgoEnabled = false

	files := flag.Args()
	if *n > 0 {
		picked, err := sample(*n)
		if err != nil {
			fmt.Fprintln(os.Stderr, "go-oracle:", err)
			os.Exit(2)
		}
		files = picked
	}

	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	// One type check per package directory, shared by its sampled files.
	type checked struct {
		files map[string]*ast.File
		info  *types.Info
		err   error
	}
	packages := map[string]*checked{}
	encoder := json.NewEncoder(os.Stdout)
	if err := encoder.Encode(map[string]string{"version": runtime.Version(), "root": build.Default.GOROOT}); err != nil {
		fmt.Fprintln(os.Stderr, "go-oracle:", err)
		os.Exit(2)
	}
	for _, name := range files {
		dir := filepath.Dir(name)
		pkg := packages[dir]
		if pkg == nil {
			pkg = &checked{files: map[string]*ast.File{}, info: &types.Info{Instances: map[*ast.Ident]types.Instance{}}}
			packages[dir] = pkg
			var members []string
			if bp, err := build.Default.ImportDir(dir, 0); err == nil {
				for _, file := range bp.GoFiles {
					members = append(members, filepath.Join(dir, file))
				}
			}
			if !contains(members, name) {
				members = []string{name}
			}
			var parsed []*ast.File
			for _, member := range members {
				file, err := parser.ParseFile(fset, member, nil, parser.SkipObjectResolution)
				if err != nil {
					pkg.err = err
					break
				}
				pkg.files[member] = file
				parsed = append(parsed, file)
			}
			if pkg.err == nil {
				var first error
				config := types.Config{Importer: imp, Error: func(err error) {
					if first == nil {
						first = err
					}
				}}
				config.Check(parsed[0].Name.Name, fset, parsed, pkg.info)
				pkg.err = first
			}
		}
		file := pkg.files[name]
		var result facts
		switch {
		case file == nil:
			result = facts{File: name, Skipped: fmt.Sprintf("does not parse: %v", pkg.err)}
		case pkg.err != nil:
			result = facts{File: name, Skipped: fmt.Sprintf("does not type-check: %v", pkg.err)}
		default:
			result = fileFacts(file, name, pkg.info)
		}
		if err := encoder.Encode(result); err != nil {
			fmt.Fprintln(os.Stderr, "go-oracle:", err)
			os.Exit(2)
		}
	}
}

func contains(list []string, item string) bool {
	for _, entry := range list {
		if entry == item {
			return true
		}
	}
	return false
}
