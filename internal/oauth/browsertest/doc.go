// Package browsertest drives slashd's OAuth2 consent page in a real,
// headless Chromium (Debian's chromium package; .ci/run installs it):
// log in, pick a guild, approve or cancel, with the Go SDK receiving the
// redirect on its loopback listener. The tests skip when no Chromium is
// installed, except under CI, where they fail.
package browsertest
