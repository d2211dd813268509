package authorize

import (
	"fmt"
	"net/url"
	"os/exec"
	"runtime"
)

// OpenBrowser opens an http(s) URL in the system browser: xdg-open on Linux
// and the BSDs, open on macOS, rundll32 url.dll,FileProtocolHandler on
// Windows. It returns once the opener is started, without waiting for the
// browser. It is the default opener of [Client.Authorize].
func OpenBrowser(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Errorf("open browser: not an http(s) URL: %q", rawURL)
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", rawURL)
	case "darwin", "ios":
		cmd = exec.Command("open", rawURL)
	default:
		cmd = exec.Command("xdg-open", rawURL)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open browser: %w", err)
	}
	go func() { _ = cmd.Wait() }() // reap the child
	return nil
}
