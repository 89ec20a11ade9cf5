package main

import (
	"fmt"

	"cockpit/config"
	"cockpit/live"
)

// initBroker adds the template table of `init --broker KIND` ("" adds none).
func (a *App) initBroker(root live.Root, kind string) (int, bool) {
	switch kind {
	case "":
		return exitOK, true
	case config.KindMCP:
		wrote, err := config.WriteMCPTemplate(root)
		if err != nil {
			return a.failf("%v", err), false
		}
		if wrote {
			fmt.Fprintf(a.Stdout, "Added [brokers.mcp] to %s: every field commented; set [cockpit] broker = \"mcp\" to trade through it.\n", config.Path(root))
		} else {
			fmt.Fprintf(a.Stdout, "%s already has [brokers.mcp] — left as it is.\n", config.Path(root))
		}
		return exitOK, true
	}
	fmt.Fprintf(a.Stderr, "cockpit init: --broker %q: want %s\n", kind, config.KindMCP)
	return exitUsage, false
}
