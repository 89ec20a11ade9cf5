package main

import (
	"flag"

	"cockpit/live"
)

// preamble is what the commands share: a flag set with --home (and --broker when the
// command names one), parsing with the broker normalised, then the root or the runtime (its
// config, log and audit trail).
type preamble struct {
	app    *App
	fs     *flag.FlagSet
	home   *string
	broker *string // nil without --broker
	def    string  // --broker's default
	key    string  // the normalised --broker after parse ("" when not given)
}

// preamble starts a command: it returns the preamble and its flag set for the command's own flags.
func (a *App) preamble(name string) (*preamble, *flag.FlagSet) {
	fs, home := a.flags(name)
	return &preamble{app: a, fs: fs, home: home}, fs
}

// withBroker adds --broker with its default and help; parse normalises it into key.
func (p *preamble) withBroker(def, usage string) {
	p.broker, p.def = p.fs.String("broker", def, usage), def
}

// brokerGiven reports whether --broker is set (a required broker is checked with it).
func (p *preamble) brokerGiven() bool { return p.broker != nil && *p.broker != "" }

// parse parses the flags (at most max positional arguments) and normalises --broker (an
// empty one only when its default is not: a required broker is the command's to check); it
// returns false and the exit code on a usage error or after --help.
func (p *preamble) parse(args []string, max int) (int, bool) {
	if code, ok := p.app.parseN(p.fs, args, max); !ok {
		return code, false
	}
	if p.broker != nil && (*p.broker != "" || p.def != "") {
		key, err := live.NormalizeBroker(*p.broker)
		if err != nil {
			return p.app.usageErr(p.fs, "--broker: %v", err), false
		}
		p.key = key
	}
	return exitOK, true
}

// root is the runtime root --home (else the environment, else ~/.cockpit) names; on an
// error it has printed it and returns false with the exit code.
func (p *preamble) root() (live.Root, int, bool) {
	root, err := p.app.root(*p.home)
	if err != nil {
		return "", p.app.failf("%v", err), false
	}
	return root, exitOK, true
}

// open opens the runtime; on an error it prints prefix and the error and returns false with
// the exit code. The caller closes the runtime.
func (p *preamble) open(prefix string) (*runtime, int, bool) {
	rt, err := p.app.openRuntime(*p.home)
	if err != nil {
		return nil, p.app.failf("%s%v", prefix, err), false
	}
	return rt, exitOK, true
}
