// Package browsertest drives slashd's playground UI (internal/ui) in a
// real, headless Chromium: log in, browse the world, chat and invoke
// commands of examples/bot. Without a Chromium no test runs (`go test`
// says "[no tests to run]"), except under CI, where the package fails.
// SLASHD_UI_SHOTS=DIR keeps the screenshots the tests take in DIR
// (otherwise in a temporary directory removed after the test).
package browsertest
