package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/world"
	"github.com/slashd/slashd/internal/worlds"
)

// worldFiles is --world, repeatable; SLASHD_WORLD holds paths separated
// by the OS's list separator (: or ;). Paths on the command line replace
// the environment's.
type worldFiles struct {
	paths   []string
	fromEnv bool
}

func (w *worldFiles) String() string { return strings.Join(w.paths, string(os.PathListSeparator)) }

func (w *worldFiles) Set(v string) error {
	if w.fromEnv {
		w.paths, w.fromEnv = nil, false
	}
	if v == "" {
		return errors.New("a world file's path is empty")
	}
	w.paths = append(w.paths, v)
	return nil
}

// worldFlag registers --world (SLASHD_WORLD).
func worldFlag(fs *flagSet, w *worldFiles) {
	fs.Var(w, "world", "apply the test world spec in `FILE` (JSON, or YAML by a .yaml/.yml name) at start, "+
		"before /healthz answers; repeatable; a world of that name already in the store is kept as it is (docs/worlds.md)")
	fs.bindEnv("world")
	if len(w.paths) == 1 {
		var paths []string
		for _, p := range filepath.SplitList(w.paths[0]) {
			if p != "" {
				paths = append(paths, p)
			}
		}
		w.paths, w.fromEnv = paths, true
	}
}

// worldFile is a spec read from a file and checked.
type worldFile struct {
	path string
	body any
	spec world.Spec
}

// readWorldFiles reads and checks every --world file before the store is
// touched: a bad one stops the start, naming the file and every error's
// path in the spec.
func readWorldFiles(paths []string) ([]worldFile, error) {
	var out []worldFile
	names := map[string]string{}
	for _, path := range paths {
		body, err := readSpecFile(path)
		if pe := new(os.PathError); errors.As(err, &pe) {
			return nil, fmt.Errorf("--world: %w", err)
		}
		if err != nil {
			return nil, fmt.Errorf("--world %s: %w", path, err)
		}
		spec, err := world.Decode(body)
		if err != nil {
			return nil, fmt.Errorf("--world %s: %s", path, describeSpecError(err))
		}
		if other, ok := names[spec.Name]; ok {
			return nil, fmt.Errorf("--world %s: the world name %q is %s's too", path, spec.Name, other)
		}
		names[spec.Name] = path
		out = append(out, worldFile{path: path, body: body, spec: spec})
	}
	return out, nil
}

// describeSpecError renders a 50035 as "path: CODE message" lines.
func describeSpecError(err error) string {
	e, ok := apierr.As(err)
	if !ok || e.Fields == nil {
		return err.Error()
	}
	raw, _ := e.Fields.MarshalJSON()
	var tree map[string]any
	_ = json.Unmarshal(raw, &tree)
	var lines []string
	var walk func(path string, node map[string]any)
	walk = func(path string, node map[string]any) {
		keys := make([]string, 0, len(node))
		for k := range node {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "_errors" {
				leaves, _ := node[k].([]any)
				for _, l := range leaves {
					m, _ := l.(map[string]any)
					where := path
					if where == "" {
						where = "(the spec)"
					}
					lines = append(lines, fmt.Sprintf("%s: %v %v", where, m["code"], m["message"]))
				}
				continue
			}
			child, _ := node[k].(map[string]any)
			p := k
			if path != "" {
				p = path + "." + k
			}
			walk(p, child)
		}
	}
	walk("", tree)
	return "invalid world spec:\n  " + strings.Join(lines, "\n  ")
}

// applyWorlds makes each world not in the store yet; one that is (by
// name) is kept as it is, and a spec that changed since is said in the
// log (reset or delete the world to apply the file again).
func applyWorlds(ctx context.Context, env worlds.Env, files []worldFile, log *slog.Logger) error {
	for _, f := range files {
		stored, err := env.Store.TestWorldByName(ctx, f.spec.Name)
		if err == nil {
			raw, _ := jsonenc.Marshal(f.body)
			if bytes.Equal(raw, stored.Spec) {
				log.Info("world kept", "world", f.spec.Name, "id", stored.ID, "file", f.path)
			} else {
				log.Warn("world kept: its file changed since it was made; reset or delete the world to apply the file",
					"world", f.spec.Name, "id", stored.ID, "file", f.path)
			}
			continue
		}
		w, err := worlds.Create(ctx, env, f.body)
		if worlds.IsNameTaken(err) {
			// Another node of the cluster made it meanwhile.
			log.Info("world kept", "world", f.spec.Name, "file", f.path)
			continue
		}
		if err != nil {
			if e, ok := apierr.As(err); ok && e.Fields != nil {
				return fmt.Errorf("--world %s: %s", f.path, describeSpecError(err))
			}
			return fmt.Errorf("--world %s: %w", f.path, err)
		}
		log.Info("world created", "world", w.Name, "id", w.ID, "file", f.path)
	}
	return nil
}
