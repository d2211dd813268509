// Package browsertest drives slashd's OAuth2 consent page in a real,
// headless Chromium (Debian's chromium package; .ci/run installs it):
// log in, pick a guild, approve or cancel, with the Go SDK receiving the
// redirect on its loopback listener. Without a Chromium no test runs
// (`go test` says "[no tests to run]"), except under CI, where the
// package fails.
package browsertest
