package main

// slashd world export and slashd world import: a test world written to a
// spec file as it is now, and a spec file made into a world, on the
// store of a data directory (docs/worlds.md, "Export and import").

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/world"
	"github.com/slashd/slashd/internal/worlds"
)

const worldExportAbout = `WORLD is the world's name or id. The spec describes the world as it is now:
what its spec made and everything made in it since (users, apps, commands and
their permissions, guilds, roles, channels, members, installations, DMs), with
the spec's handles; objects made later get handles made of their names. It
holds no credential: a world made from it gets new ones. The file is written
whole or not at all (a temporary file in its directory, renamed).`

const worldImportAbout = `FILE is a world spec (JSON, or YAML by a .yaml/.yml name), such as one
'slashd world export' wrote. The world is made in one transaction: a refused
spec, or a name another world has, leaves the store as it was.`

// storeOnlyFlags are the flags that find the store (no --init: export
// and import work on a store that exists).
func storeOnlyFlags(fs *flagSet) *storeOptions {
	o := &storeOptions{}
	dataFlag(fs, &o.dataDir)
	storeFlag(fs, &o.store)
	secretKeyFlags(fs, &o.keys)
	return o
}

func defineWorldExport(fs *flagSet) runFunc {
	var messages bool
	var output string
	fs.BoolVar(&messages, "messages", false, "include the messages of the world's channels, DMs and group DMs (the newest 1000 of each)")
	fs.StringVar(&output, "o", "-", "write the spec to `FILE` (- : standard output)")
	fs.StringVar(&output, "output", "-", "the same as -o")
	o := storeOnlyFlags(fs)
	return func(ctx context.Context, out io.Writer) error {
		args := fs.commandArgs()
		if len(args) != 1 {
			return usageErrorf("world export: give one WORLD (a name or an id), not %d", len(args))
		}
		env, closeStore, err := cliEnv(ctx, o)
		if err != nil {
			return err
		}
		defer closeStore()
		w, err := worldByRef(ctx, env.Store, args[0])
		if err != nil {
			return err
		}
		doc, err := worlds.Export(ctx, env.Store, w, worlds.ExportOptions{Messages: messages})
		if err != nil {
			return err
		}
		raw, err := jsonenc.MarshalIndent(doc, "", "  ")
		if err != nil {
			return fmt.Errorf("encode the spec: %w", err)
		}
		raw = append(raw, '\n')
		if output == "-" || output == "" {
			_, err := out.Write(raw)
			return err
		}
		return writeFileAtomic(output, raw)
	}
}

// worldByRef finds a world by id or name, as the admin API's {world}.
func worldByRef(ctx context.Context, st store.Store, ref string) (store.TestWorld, error) {
	var (
		w   store.TestWorld
		err = store.ErrNotFound
	)
	if id, perr := snowflake.Parse(ref); perr == nil && id != 0 {
		w, err = st.TestWorld(ctx, id)
	} else if world.ValidName(ref) {
		w, err = st.TestWorldByName(ctx, ref)
	}
	if errors.Is(err, store.ErrNotFound) {
		return w, fmt.Errorf("no world %q in the store", ref)
	}
	return w, err
}

// writeFileAtomic writes data to path so that path is never seen half
// written: a temporary file in the same directory, synced, then renamed
// over path, and the directory synced so that the rename lasts.
func writeFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// A spec holds no secret: readable as any file the user writes.
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: sync: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync() // not every system syncs a directory; the file is whole either way
		d.Close()
	}
	return nil
}

func defineWorldImport(fs *flagSet) runFunc {
	var name string
	fs.StringVar(&name, "name", "", "make the world under this `NAME` instead of the spec's")
	o := storeOnlyFlags(fs)
	fs.BoolVar(&o.init, "init", false, "create the SQLite store when the data directory has none")
	fs.BoolVar(&o.asJSON, "json", false, "print JSON: the world object the admin API answers with (every id and credential)")
	return func(ctx context.Context, out io.Writer) error {
		args := fs.commandArgs()
		if len(args) != 1 {
			return usageErrorf("world import: give one FILE, not %d", len(args))
		}
		body, err := readSpecFile(args[0])
		if err != nil {
			return fmt.Errorf("world import %s: %w", args[0], err)
		}
		if name != "" {
			if m, ok := body.(map[string]any); ok {
				m["name"] = name
			}
		}
		spec, err := world.Decode(body)
		if err != nil {
			return fmt.Errorf("world import %s: %s", args[0], describeSpecError(err))
		}
		env, closeStore, err := cliEnv(ctx, o)
		if err != nil {
			return err
		}
		defer closeStore()
		wenv := worlds.Env{Store: env.Store, IDs: env.IDs.Next, Rand: env.Rand, Now: env.Now}
		w, err := worlds.Create(ctx, wenv, body)
		if worlds.IsNameTaken(err) {
			return fmt.Errorf("world import %s: a world named %q is already in the store: delete it first, or import under --name",
				args[0], spec.Name)
		}
		if e, ok := apierr.As(err); ok && e.Fields != nil {
			return fmt.Errorf("world import %s: %s", args[0], describeSpecError(err))
		}
		if err != nil {
			return fmt.Errorf("world import %s: %w", args[0], err)
		}
		if o.asJSON {
			obj, err := worlds.ObjectOf(w, time.Now())
			if err != nil {
				return err
			}
			return printJSON(out, obj)
		}
		fmt.Fprintf(out, "world %s imported (id %d)\n", w.Name, w.ID)
		return nil
	}
}

// readSpecFile reads a world spec file: YAML by a .yaml or .yml name,
// JSON otherwise.
func readSpecFile(path string) (any, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
		return world.FromYAML(raw)
	}
	body, err := form.DecodeJSON(raw)
	if err != nil {
		return nil, errors.New("not one JSON value (a YAML file needs a .yaml or .yml name)")
	}
	return body, nil
}
