package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/secrets"
	"github.com/slashd/slashd/internal/snowflake"
)

// cliNode is the snowflake node of a CLI process: distinct from the
// server's node 0 (and, by pid, from other CLI runs), so ids minted while
// a server runs on the same data dir never collide.
func cliNode() uint16 { return uint16(1 + os.Getpid()%1023) }

// cliEnv opens the store for a CLI verb (see openStore), warnings going
// to stderr. Its id generator starts after the largest id in the store,
// so consecutive CLI runs never repeat an id.
func cliEnv(ctx context.Context, storeURL, dataDir string, keys secrets.Config, stderr io.Writer) (bootstrap.Env, func(), error) {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	st, err := openStore(ctx, storeURL, dataDir, keys, log)
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

func appCreate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("app create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data", envOr(getenv, "SLASHD_DATA", "./slashd-data"), "data directory")
	var (
		storeURL string
		keys     secrets.Config
	)
	storeFlag(fs, &storeURL, getenv)
	secretKeyFlags(fs, &keys, getenv)
	name := fs.String("name", "", "application name (required)")
	embedded := fs.Bool("embedded", false, "give the app an Activity (EMBEDDED flag and a Launch entry point command)")
	asJSON := fs.Bool("json", false, "print JSON")
	addr := fs.String("addr", envOr(getenv, "SLASHD_ADDR", "127.0.0.1:8080"), "address the server listens on (for base_url)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *name == "" {
		return fmt.Errorf("app create: --name is required")
	}
	env, closeStore, err := cliEnv(ctx, storeURL, *dataDir, keys, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	creds, err := bootstrap.CreateApp(ctx, env, bootstrap.AppOptions{Name: *name, BaseURL: "http://" + *addr, Embedded: *embedded})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, creds)
	}
	fmt.Fprintf(stdout, "application %s created\n  bot token:   %s\n  client secret: %s\n  guild:       %s\n",
		creds.ApplicationID, creds.BotToken, creds.ClientSecret, creds.GuildID)
	return nil
}

func guildCreate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("guild create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDir := fs.String("data", envOr(getenv, "SLASHD_DATA", "./slashd-data"), "data directory")
	var (
		storeURL string
		keys     secrets.Config
	)
	storeFlag(fs, &storeURL, getenv)
	secretKeyFlags(fs, &keys, getenv)
	name := fs.String("name", "", "guild name (required)")
	install := fs.String("install", "", "id of an application to install in the guild")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *name == "" {
		return fmt.Errorf("guild create: --name is required")
	}
	var appID, owner snowflake.ID
	if *install != "" {
		id, err := snowflake.Parse(*install)
		if err != nil {
			return fmt.Errorf("--install %q: %w", *install, err)
		}
		appID = id
	}
	env, closeStore, err := cliEnv(ctx, storeURL, *dataDir, keys, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	if appID != 0 {
		app, err := env.Store.Application(ctx, appID)
		if err != nil {
			return fmt.Errorf("--install %s: %w", *install, err)
		}
		owner = app.OwnerID // the app's owner owns the guild, so their Bearer token can edit permissions
	} else {
		owner = env.IDs.Next()
		if err := env.Store.CreateUser(ctx, bootstrap.NewOwner(owner, env.Now())); err != nil {
			return err
		}
	}
	id, err := bootstrap.CreateGuild(ctx, env, *name, owner, appID)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(stdout, map[string]string{"guild_id": id.String()})
	}
	fmt.Fprintf(stdout, "guild %s created\n", id)
	return nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
