// Command slashd runs the slashd application-commands service and its
// administrative verbs.
//
//	slashd serve [--addr 127.0.0.1:8080] [--data ./slashd-data] [--store postgres://…] [--nats nats://…] [--ratelimit=true]
//	slashd app create --data DIR [--store URL] --name NAME [--embedded] [--json]
//	slashd guild create --data DIR [--store URL] --name NAME [--install APP_ID] [--json]
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "slashd:", err)
		os.Exit(1)
	}
}

const usage = `usage:
  slashd serve [--addr ADDR] [--data DIR] [--store URL] [--nats URL] [--ratelimit=BOOL] [--log-level LEVEL]
               [--log-format text|json] [--metrics-addr ADDR] [--pprof-addr ADDR]
  slashd app create --data DIR [--store URL] --name NAME [--embedded] [--json]
  slashd guild create --data DIR [--store URL] --name NAME [--install APP_ID] [--json]
  slashd user create --data DIR [--store URL] --name NAME [--global-name N] [--locale L] [--adult] [--password PW] [--json]
  slashd role create --data DIR [--store URL] --guild ID --name NAME [--permissions BITS] [--position N] [--json]
  slashd member add --data DIR [--store URL] --guild ID --user ID [--roles ID,ID] [--nick NICK] [--json]
  slashd channel create --data DIR [--store URL] --guild ID --name NAME [--type 0] [--parent ID] [--nsfw] [--position N] [--json]
  slashd token mint --data DIR [--store URL] --user ID [--app ID [--scopes "SCOPE …"]] [--json]

--store URL: postgres://user:password@host:5432/db?sslmode=… (PostgreSQL, CockroachDB,
  YugabyteDB); unset: the SQLite database in --data

environment: SLASHD_ADDR, SLASHD_DATA, SLASHD_STORE, SLASHD_RATELIMIT, SLASHD_LOG_LEVEL,
  SLASHD_LOG_FORMAT, SLASHD_METRICS_ADDR, SLASHD_PPROF_ADDR
`

// run dispatches a command line; getenv supplies the environment.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("no command given")
	}
	switch args[0] {
	case "serve":
		cfg, err := parseServeFlags(args[1:], getenv, stderr)
		if err != nil {
			return err
		}
		return serve(ctx, cfg, stdout, nil)
	case "app":
		if len(args) > 1 && args[1] == "create" {
			return appCreate(ctx, args[2:], getenv, stdout, stderr)
		}
	case "guild":
		if len(args) > 1 && args[1] == "create" {
			return guildCreate(ctx, args[2:], getenv, stdout, stderr)
		}
	case "user", "role", "member", "channel", "token":
		return worldVerb(ctx, args, getenv, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}
