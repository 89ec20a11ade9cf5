package main

import (
	"bufio"
	"flag"
	"io"
	"strings"
	"time"
)

// subcommands are the sub-verbs of the verbs that have them, as their dispatchers switch on
// them ("profile check" is two words). Completion and docs/cli.md walk this list; a test
// runs each one to its FlagSet, so a name that is not dispatched fails it.
var subcommands = map[string][]string{
	"mandate":   {"show", "validate", "commit", "adopt", "new"},
	"audit":     {"list", "show", "verify", "export", "rotate"},
	"approvals": {"list", "approve", "deny"},
	"fleet":     {"serve", "add-host", "status"},
	"broker":    {"tools", "profile check", "profile list", "profile show"},
}

// describeHome is the runtime root a command sees while it is only described: a path that
// does not exist, so a command that touched its root before parsing its flags (none does)
// would fail there instead of changing a real one.
const describeHome = "/nonexistent/cockpit-describe"

// command is one leaf of the command line: its words ("broker profile check"), its verb's
// usage and summary, and the flags it parses.
type command struct {
	path    string
	verb    verb
	flags   *flag.FlagSet
	hasSubs bool
}

// commands lists every leaf command in verbs() order, each with the FlagSet it parses.
func commands() []command {
	var out []command
	for _, v := range verbs() {
		subs, ok := subcommands[v.name]
		if !ok {
			out = append(out, command{path: v.name, verb: v, flags: flagSetOf(v, nil)})
			continue
		}
		for _, s := range subs {
			out = append(out, command{path: v.name + " " + s, verb: v, flags: flagSetOf(v, strings.Fields(s)), hasSubs: true})
		}
	}
	return out
}

// findCommand is the leaf command with these words, if any.
func findCommand(path string) (command, bool) {
	for _, c := range commands() {
		if c.path == path {
			return c, true
		}
	}
	return command{}, false
}

// flagSetOf runs verb v (with sub-verb words sub) in describe mode: the command builds its
// FlagSet as it always does and parseN hands it over instead of parsing, so the command
// returns before it does anything. Nil when the command never parsed flags.
func flagSetOf(v verb, sub []string) *flag.FlagSet {
	a := &App{Stdin: bufio.NewReader(strings.NewReader("")), Stdout: io.Discard, Stderr: io.Discard, Now: time.Now,
		Getenv: func(k string) string {
			if k == "COCKPIT_HOME" {
				return describeHome
			}
			return ""
		}}
	a.describe = new(*flag.FlagSet)
	v.run(a, sub)
	return *a.describe
}

// flagNames are a FlagSet's flags, sorted by name (as PrintDefaults lists them).
func flagNames(fs *flag.FlagSet) []*flag.Flag {
	var out []*flag.Flag
	if fs != nil {
		fs.VisitAll(func(f *flag.Flag) { out = append(out, f) })
	}
	return out
}

// isBoolFlag reports a flag that takes no value (--json, not --json true).
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
