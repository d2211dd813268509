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
//	slashd admin-token [--data DIR] [--keep-old]
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
	ctx, stop := signalContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		err = interruptedOr(ctx, err)
		fmt.Fprintln(os.Stderr, "slashd:", err)
		os.Exit(exitCode(err))
	}
}

// signalContext is signal.NotifyContext whose cause, once a signal
// came, is an *interrupted naming it (NotifyContext's only says it in
// words): the exit status of a command cut short follows the signal.
func signalContext(parent context.Context, sigs ...os.Signal) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			cancel(&interrupted{sig: s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(context.Canceled)
	}
}
