// Command slashd runs the slashd application-commands service and its
// administrative verbs. `slashd help` lists the commands; `slashd
// COMMAND --help` lists a command's flags with their environment
// variables and defaults.
//
//	slashd serve [--addr 127.0.0.1:8080] [--data ./slashd-data] [--store postgres://…] [--nats nats://…]
//	slashd app create --name NAME [--data DIR] [--init] [--json]
//	slashd guild create --name NAME [--install APP_ID]
//	slashd user create | role create | member add | channel create | token mint …
//	slashd invoke [--data DIR] [--as USER_ID] [--channel ID] [--app ID] [--json] '/group sub name:value'
//	slashd version
//	slashd healthcheck [--addr ADDR]
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "slashd:", err)
		os.Exit(exitCode(err))
	}
}
