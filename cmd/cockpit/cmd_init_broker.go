package main

import (
	"fmt"

	"cockpit/config"
	"cockpit/live"
)

// initBroker is `cockpit init --broker KIND`: the config template selecting a real broker,
// with its commented section. No mandate is committed: a real account's mandate is the
// operator's to write (`cockpit mandate new --broker KIND`, then `mandate commit`).
func (a *App) initBroker(root live.Root, kind string) int {
	section, ok := config.BrokerSection(kind)
	if !ok {
		return a.failf("init --broker %q: want alpaca", kind)
	}
	wrote, err := config.WriteBrokerTemplate(root, kind)
	if err != nil {
		return a.failf("%v", err)
	}
	if !wrote {
		fmt.Fprintf(a.Stdout, "%s already exists — left as it is. To add the broker, paste this section and set cockpit.broker = %q:\n%s", config.Path(root), kind, section)
		return exitOK
	}
	fmt.Fprintf(a.Stdout, "Wrote %s with a [brokers.%s] table in paper mode (cockpit.broker = %q).\n", config.Path(root), kind, kind)
	if kind == config.KindAlpaca {
		fmt.Fprintf(a.Stdout, "Set %s and %s in the environment; the keys are never read from the file.\n", config.AlpacaKeyEnv, config.AlpacaSecretEnv)
	}
	fmt.Fprintf(a.Stdout, "No order can pass until a mandate is committed: cockpit mandate new --broker %s, then cockpit mandate commit --broker %s --from FILE.\n", kind, kind)
	return exitOK
}
