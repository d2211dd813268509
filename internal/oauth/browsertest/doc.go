// Package browsertest drives slashd's OAuth2 consent page in a real,
// headless Chromium (Debian's chromium package; .ci/run installs it):
// log in, pick a guild, approve or cancel, with the Go SDK receiving the
// redirect on its loopback listener, and as an OpenID Connect relying
// party built from golang.org/x/oauth2 and github.com/coreos/go-oidc/v3
// (prompt, max_age, the POSTed request, userinfo's errors). Without a
// Chromium no test runs (`go test` says "[no tests to run]"), except
// under CI, where the package fails.
package browsertest
