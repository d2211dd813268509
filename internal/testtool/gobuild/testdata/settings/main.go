// Command settings prints the build settings it was built with, one
// key=value a line, for gobuild's test.
package main

import (
	"fmt"
	"runtime/debug"
)

func main() {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	for _, s := range info.Settings {
		fmt.Printf("%s=%s\n", s.Key, s.Value)
	}
}
