// Package readmetest runs the README's walkthrough ("Your first bot")
// and docs/interactions.md's command by hand as they are written, with
// bash, curl and jq, against a real slashd process and examples/bot. The
// Markdown marks each block it runs with a comment
// (<!-- README test: NAME -->) right before the block. Without bash, curl
// or jq no test runs (`go test` says "[no tests to run]"), except under
// CI, where the package fails.
package readmetest
