package main

import (
	"fmt"
	"strings"

	"cockpit/config"
	"cockpit/live"
)

// initBroker is `cockpit init --broker KIND`: a fresh root gets the config template selecting
// that broker with its commented [brokers.KIND] table; an existing config.toml gets the table
// appended (once) and keeps its cockpit.broker. No mandate is committed: a real account's
// mandate is the operator's to write (`cockpit mandate new --broker KIND`, then `mandate commit`).
func (a *App) initBroker(root live.Root, kind string) int {
	if _, ok := config.BrokerSection(kind); !ok {
		fmt.Fprintf(a.Stderr, "cockpit init: --broker %q: want %s\n", kind, strings.Join(config.BrokerKinds(), " or "))
		return exitUsage
	}
	res, err := config.AddBrokerTemplate(root, kind)
	if err != nil {
		return a.failf("%v", err)
	}
	switch res {
	case config.BrokerTemplateWritten:
		fmt.Fprintf(a.Stdout, "Wrote %s with a [brokers.%s] table in paper mode (cockpit.broker = %q).\n", config.Path(root), kind, kind)
	case config.BrokerTemplateAdded:
		fmt.Fprintf(a.Stdout, "Added [brokers.%s] to %s, every field commented; set [cockpit] broker = %q to trade through it.\n", kind, config.Path(root), kind)
	default:
		fmt.Fprintf(a.Stdout, "%s already has [brokers.%s] — left as it is.\n", config.Path(root), kind)
		return exitOK
	}
	if kind == config.KindAlpaca {
		fmt.Fprintf(a.Stdout, "Set %s and %s in the environment; the keys are never read from the file.\n", config.AlpacaKeyEnv, config.AlpacaSecretEnv)
	}
	fmt.Fprintf(a.Stdout, "No order can pass until a mandate is committed: cockpit mandate new --broker %s, then cockpit mandate commit --broker %s --from FILE.\n", kind, kind)
	return exitOK
}
