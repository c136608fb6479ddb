package js

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/grafana/sobek"

	"github.com/opsbench/opsbench/engine/internal/js/modules"
)

// bundleName names the bundle in stack traces of code that maps to no source file
// (esbuild's helpers); everything else maps back to the script's own files,
// named relative to the script's folder.
const bundleName = "opsbench-bundle.js"

// The bundle is CommonJS wrapped in a function: running it yields the function,
// which the runtime calls with the VU's module, exports and require.
const wrapperHead = "(function (module, exports, require) {"

// bundle builds the entry script and its local imports into one program that
// every VU runs. k6's modules stay imports, resolved by require at run time.
func bundle(entry, root, realRoot string) (*sobek.Program, error) {
	b := &bundler{root: root, realRoot: realRoot, entry: entry}
	res := api.Build(api.BuildOptions{
		EntryPoints:    []string{entry},
		Bundle:         true,
		Write:          false,
		Format:         api.FormatCommonJS,
		Platform:       api.PlatformNeutral,
		Target:         api.ES2020,
		Sourcemap:      api.SourceMapInline,
		SourcesContent: api.SourcesContentExclude,
		Outfile:        filepath.Join(root, bundleName),
		AbsWorkingDir:  root,
		Charset:        api.CharsetUTF8,
		LogLevel:       api.LogLevelSilent,
		Plugins:        []api.Plugin{{Name: "opsbench-resolve", Setup: b.setup}},
	})
	if len(res.Errors) > 0 {
		return nil, b.buildError(res.Errors)
	}
	if len(res.OutputFiles) != 1 {
		return nil, &ScriptError{Message: fmt.Sprintf("bundling %s gave %d outputs instead of one", entry, len(res.OutputFiles))}
	}
	src := wrapperHead + string(res.OutputFiles[0].Contents) + "\n})"
	ast, err := sobek.Parse(bundleName, src)
	if err != nil {
		return nil, &ScriptError{Message: "the bundled script does not parse: " + err.Error(), Err: err}
	}
	prg, err := sobek.CompileAST(ast, true)
	if err != nil {
		return nil, &ScriptError{Message: "the bundled script does not compile: " + err.Error(), Err: err}
	}
	return prg, nil
}

type bundler struct {
	root, realRoot, entry string
	// refused is the first module refused, for errors.As on the build error.
	refused *UnsupportedError
}

func (b *bundler) setup(pb api.PluginBuild) {
	pb.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
		if args.Kind == api.ResolveEntryPoint {
			return api.OnResolveResult{Path: args.Path}, nil
		}
		spec := args.Path
		switch {
		case spec == "k6" || strings.HasPrefix(spec, "k6/"):
			if modules.Lookup(spec) == nil {
				err := &UnsupportedError{What: fmt.Sprintf("the module %q", spec), Hint: "supported: " + strings.Join(supportedModules(), ", ")}
				if b.refused == nil {
					b.refused = err
				}
				return api.OnResolveResult{}, err
			}
			return api.OnResolveResult{Path: spec, External: true}, nil
		case strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://"):
			err := &UnsupportedError{What: fmt.Sprintf("the remote module %q", spec), Hint: "download it next to the script and import it with a relative path"}
			if b.refused == nil {
				b.refused = err
			}
			return api.OnResolveResult{}, err
		case strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || strings.HasPrefix(spec, "file://") || filepath.IsAbs(spec):
			p, err := b.local(spec, args.ResolveDir)
			if err != nil {
				return api.OnResolveResult{}, err
			}
			return api.OnResolveResult{Path: p}, nil
		}
		return api.OnResolveResult{}, fmt.Errorf("cannot import %q: a script imports k6 modules and files under its folder by a path such as \"./lib.js\" (there is no Node.js module resolution)", spec)
	})
}

// local resolves a local import, which must name an existing file under the script's folder.
func (b *bundler) local(spec, dir string) (string, error) {
	p, err := confine(b.root, b.realRoot, spec, dir)
	if err != nil {
		return "", fmt.Errorf("cannot import %q: %w", spec, err)
	}
	return p, nil
}

// confine resolves spec (relative to dir, absolute, or a file:// URL) to a path
// that must exist under the script's folder, symlinks included.
func confine(root, realRoot, spec, dir string) (string, error) {
	p := spec
	if strings.HasPrefix(p, "file://") {
		u, err := url.Parse(p)
		if err != nil {
			return "", err
		}
		p = u.Path
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	if !within(root, p) && !within(realRoot, p) {
		return "", fmt.Errorf("%s is outside the script's folder %s", p, root)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("no such file: %s", p)
		}
		return "", err
	}
	if !within(realRoot, real) {
		return "", fmt.Errorf("%s leads outside the script's folder %s", p, root)
	}
	return p, nil
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func (b *bundler) buildError(msgs []api.Message) error {
	lines := make([]string, 0, len(msgs))
	for _, m := range msgs {
		text := m.Text
		if l := m.Location; l != nil {
			file := l.File
			if rel, err := filepath.Rel(b.root, file); err == nil && !strings.HasPrefix(rel, "..") {
				file = rel
			}
			text = fmt.Sprintf("%s:%d:%d: %s", file, l.Line, l.Column+1, text)
		}
		lines = append(lines, text)
	}
	e := &ScriptError{Message: strings.Join(lines, "\n")}
	if b.refused != nil {
		e.Err = b.refused
	}
	return e
}

// supportedModules lists the k6 modules scripts may import.
func supportedModules() []string {
	names := modules.Names()
	// "k6" first, then the rest as sorted.
	if i := slices.Index(names, "k6"); i > 0 {
		names = append([]string{"k6"}, slices.Delete(names, i, i+1)...)
	}
	return names
}
