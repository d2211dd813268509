package main

// The verbs that build the world on a store (app create, guild create,
// user create, …): their common flags, the store they open, and how they
// hand their flags to the admin API's rules (internal/admin).

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/secrets"
	"github.com/slashd/slashd/internal/snowflake"
)

// cliNode is the snowflake node of a CLI process: distinct from the
// server's node 0 (and, by pid, from other CLI runs), so ids minted while
// a server runs on the same data dir never collide.
func cliNode() uint16 { return uint16(1 + os.Getpid()%1023) }

// storeOptions are the flags every world verb has: which store, and
// whether to print JSON.
type storeOptions struct {
	dataDir, store string
	keys           secrets.Config
	init, asJSON   bool
}

func storeFlags(fs *flagSet) *storeOptions {
	o := &storeOptions{}
	dataFlag(fs, &o.dataDir)
	storeFlag(fs, &o.store)
	secretKeyFlags(fs, &o.keys)
	fs.BoolVar(&o.init, "init", false,
		"create the SQLite store when the data directory has none (without it the verb refuses: a server started on another directory would never see what it made)")
	fs.BoolVar(&o.asJSON, "json", false, "print JSON: the object the admin API answers with")
	return o
}

// cliEnv opens the store of o (see openStore). A data directory without
// a SQLite store is refused unless o.init. The id generator starts
// after the largest id in the store, so consecutive CLI runs never
// repeat an id.
func cliEnv(ctx context.Context, o *storeOptions) (bootstrap.Env, func(), error) {
	if o.store == "" && !o.init {
		ok, err := hasSQLiteStore(o.dataDir)
		if err != nil {
			return bootstrap.Env{}, nil, fmt.Errorf("data directory %s: %w", o.dataDir, err)
		}
		if !ok {
			return bootstrap.Env{}, nil, fmt.Errorf("no slashd store in %s (no %s there): point --data (or SLASHD_DATA) at the "+
				"directory `slashd serve` uses, or pass --init to create a new store there", o.dataDir, sqliteFile)
		}
	}
	st, err := openStore(ctx, o.store, o.dataDir, o.keys, nil)
	if err != nil {
		return bootstrap.Env{}, nil, err
	}
	ids := snowflake.NewGenerator(cliNode(), nil)
	last, err := st.MaxID(ctx)
	if err != nil {
		st.Close()
		return bootstrap.Env{}, nil, err
	}
	ids.After(last)
	env := bootstrap.Env{Store: st, IDs: ids, Rand: rand.Reader, Now: time.Now}
	return env, func() { st.Close() }, nil
}

// worldStep is the part of a world verb that runs on the store. It
// returns the object --json prints and the line printed otherwise.
type worldStep func(ctx context.Context, env bootstrap.Env) (obj any, text string, err error)

// worldCommand makes a command of a world verb. define registers the
// verb's own flags and returns its check, which runs on the parsed flags
// alone (the admin API's rules that need no store) before the store is
// opened, and returns the step that runs on it.
func worldCommand(define func(fs *flagSet) func() (worldStep, error)) func(fs *flagSet) runFunc {
	return func(fs *flagSet) runFunc {
		check := define(fs)
		o := storeFlags(fs)
		return func(ctx context.Context, out io.Writer) error {
			step, err := check()
			if err != nil {
				return err
			}
			env, closeStore, err := cliEnv(ctx, o)
			if err != nil {
				return err
			}
			defer closeStore()
			obj, text, err := step(ctx, env)
			if err != nil {
				return refusedOr(fs.Name(), err, nil)
			}
			if o.asJSON {
				return printJSON(out, obj)
			}
			fmt.Fprintln(out, text)
			return nil
		}
	}
}

func printJSON(w io.Writer, v any) error {
	enc := jsonenc.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// ---- flags that are fields of an admin API request ----

// requestFlags are flags that stand for the fields of an admin API
// request body. A verb sends the body they make through the admin API's
// own rules (internal/admin), so the CLI refuses exactly what the API
// refuses; refusals name the flags.
type requestFlags struct {
	fs     *flagSet
	verb   string
	fields []requestField
	flagOf map[string]string // body field → flag
}

type requestField struct {
	flag, field string
	text        *string // a string field, or a list (comma-separated)
	list        bool
	on          *bool // a boolean field
}

func newRequestFlags(fs *flagSet) *requestFlags {
	return &requestFlags{fs: fs, verb: fs.Name(), flagOf: map[string]string{}}
}

// text registers a flag for a field the body carries as a string: a
// name, or an id, number or bit set (the admin API reads those from
// strings, so its rules, not the flag parser, judge them).
func (r *requestFlags) text(flagName, field, def, usage string) {
	f := requestField{flag: flagName, field: field, text: new(string)}
	r.fs.StringVar(f.text, flagName, def, usage)
	r.add(f)
}

// list registers a flag for a field the body carries as a list of
// strings, written comma-separated.
func (r *requestFlags) list(flagName, field, usage string) {
	f := requestField{flag: flagName, field: field, text: new(string), list: true}
	r.fs.StringVar(f.text, flagName, "", usage)
	r.add(f)
}

// boolean registers a flag for a boolean field.
func (r *requestFlags) boolean(flagName, field, usage string) {
	f := requestField{flag: flagName, field: field, on: new(bool)}
	r.fs.BoolVar(f.on, flagName, false, usage)
	r.add(f)
}

func (r *requestFlags) add(f requestField) {
	r.fields = append(r.fields, f)
	r.flagOf[f.field] = f.flag
}

// body is the request the flags make: a field for each flag given on the
// command line, and for each text flag with a default (the API's own).
func (r *requestFlags) body() map[string]any {
	m := map[string]any{}
	for _, f := range r.fields {
		set := r.fs.isSet(f.flag)
		switch {
		case f.on != nil && set:
			m[f.field] = *f.on
		case f.list && set:
			items := []any{}
			for _, s := range strings.Split(*f.text, ",") {
				if s = strings.TrimSpace(s); s != "" {
					items = append(items, s)
				}
			}
			m[f.field] = items
		case f.text != nil && !f.list && (set || *f.text != ""):
			m[f.field] = *f.text
		}
	}
	return m
}

// form is the body as the admin API reads it.
func (r *requestFlags) form() admin.Form { return admin.NewForm(r.body()) }

// refused is err, from the admin API's rules, told in flags.
func (r *requestFlags) refused(err error) error { return refusedOr(r.verb, err, r.flagOf) }

// refusedOr makes the CLI's error of err: a refusal naming flags (through
// flagOf, body field → flag) when err is the admin API's, err with the
// verb's name otherwise.
func refusedOr(verb string, err error, flagOf map[string]string) error {
	var done *refusal
	if errors.As(err, &done) {
		return err
	}
	if ae, ok := apierr.As(err); ok {
		return &refusal{verb: verb, err: ae, flagOf: flagOf}
	}
	return fmt.Errorf("%s: %w", verb, err)
}

// refusal is a request the admin API's rules refuse. It unwraps to the
// error the API would answer with.
type refusal struct {
	verb   string
	err    *apierr.Error
	flagOf map[string]string
}

func (r *refusal) Unwrap() error { return r.err }

// Error lists each field error as "--flag: message (CODE)".
func (r *refusal) Error() string {
	if r.err.Fields == nil || r.err.Fields.Empty() {
		return r.verb + ": " + r.err.Message
	}
	var tree any
	if b, err := jsonenc.Marshal(r.err.Fields); err == nil {
		_ = json.Unmarshal(b, &tree)
	}
	var lines []string
	r.walk(tree, nil, &lines)
	return r.verb + ": " + strings.Join(lines, "; ")
}

// walk collects the errors of a rendered field tree with their paths.
func (r *refusal) walk(node any, path []string, lines *[]string) {
	m, _ := node.(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k != "_errors" {
			r.walk(m[k], append(path, k), lines)
			continue
		}
		leaves, _ := m[k].([]any)
		for _, l := range leaves {
			leaf, _ := l.(map[string]any)
			msg := fmt.Sprintf("%s (%s)", leaf["message"], leaf["code"])
			if p := r.describe(path); p != "" {
				msg = p + ": " + msg
			}
			*lines = append(*lines, msg)
		}
	}
}

// describe names a field path: its flag, then list items counted from 1.
func (r *refusal) describe(path []string) string {
	if len(path) == 0 {
		return ""
	}
	var b strings.Builder
	if fl, ok := r.flagOf[path[0]]; ok {
		b.WriteString("--" + fl)
	} else {
		b.WriteString(path[0])
	}
	for _, p := range path[1:] {
		if n, err := strconv.Atoi(p); err == nil {
			fmt.Fprintf(&b, ", item %d", n+1)
		} else {
			b.WriteString("." + p)
		}
	}
	return b.String()
}

// ---- app create, guild create ----

func defineAppCreate(fs *flagSet) func() (worldStep, error) {
	req := newRequestFlags(fs)
	req.text("name", "name", "", "application name, 2 to 32 characters (required)")
	req.boolean("embedded", "embedded", "give the app an Activity (the EMBEDDED flag and a Launch entry point command)")
	var addr string
	addrFlag(fs, &addr, "address the server listens on, for the credentials' base_url")
	return func() (worldStep, error) {
		f := req.form()
		app := admin.AppFields(f)
		if err := f.Err(); err != nil {
			return nil, req.refused(err)
		}
		return func(ctx context.Context, env bootstrap.Env) (any, string, error) {
			world, err := env.Store.DefaultWorld(ctx)
			if err != nil {
				return nil, "", err
			}
			creds, err := bootstrap.CreateApp(ctx, env,
				bootstrap.AppOptions{Name: app.Name, BaseURL: baseURLOf(addr), Embedded: app.Embedded, WorldID: world})
			if err != nil {
				return nil, "", err
			}
			text := fmt.Sprintf("application %s created\n  bot token:     %s\n  client secret: %s\n  guild:         %s",
				creds.ApplicationID, creds.BotToken, creds.ClientSecret, creds.GuildID)
			return creds, text, nil
		}, nil
	}
}

func defineGuildCreate(fs *flagSet) func() (worldStep, error) {
	req := newRequestFlags(fs)
	req.text("name", "name", "", "guild name, 2 to 100 characters (required)")
	install := fs.String("install", "", "`ID` of an application to install in the guild (its owner owns the guild)")
	return func() (worldStep, error) {
		f := req.form()
		name, _ := admin.GuildName(f, true)
		if err := f.Err(); err != nil {
			return nil, req.refused(err)
		}
		var appID snowflake.ID
		if *install != "" {
			id, err := parseIDFlag("install", *install)
			if err != nil {
				return nil, err
			}
			appID = id
		}
		return func(ctx context.Context, env bootstrap.Env) (any, string, error) {
			return guildCreate(ctx, env, name, appID)
		}, nil
	}
}

// guildCreate creates a guild of the default world (the admin API's
// rule for a create naming no world); with an app to install, the app's
// owner owns it (so their Bearer token can edit permissions), else a new
// user.
func guildCreate(ctx context.Context, env bootstrap.Env, name string, appID snowflake.ID) (any, string, error) {
	world, err := env.Store.DefaultWorld(ctx)
	if err != nil {
		return nil, "", err
	}
	var owner snowflake.ID
	if appID != 0 {
		app, err := env.Store.Application(ctx, appID)
		if err != nil {
			return nil, "", fmt.Errorf("--install %s: %w", appID, err)
		}
		// An app of another world is not linked to the guild.
		if err := admin.SameWorld("application", app.WorldID, "guild", world, "install"); err != nil {
			return nil, "", refusedOr("guild create", err, nil)
		}
		owner = app.OwnerID
	} else {
		owner = env.IDs.Next()
		u := bootstrap.NewOwner(owner, env.Now())
		u.WorldID = world
		if err := env.Store.CreateUser(ctx, u); err != nil {
			return nil, "", err
		}
	}
	id, err := bootstrap.CreateGuildIn(ctx, env, world, name, owner, appID)
	if err != nil {
		return nil, "", err
	}
	return map[string]string{"guild_id": id.String()}, fmt.Sprintf("guild %s created", id), nil
}
