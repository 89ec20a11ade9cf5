package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"cockpit/config"
	"cockpit/live"
	"cockpit/session"
	"cockpit/store"
)

// completeVerb is the hidden verb the completion scripts call back: `cockpit __complete
// WORD…` with the words after "cockpit", the last one the word being completed.
const completeVerb = "__complete"

// Directives a completion answer may be instead of candidates: the shell completes file or
// directory names itself.
const (
	completeFiles = ":files"
	completeDirs  = ":dirs"
)

// shells are the shells `cockpit completion` writes a script for.
var shells = []string{"bash", "zsh", "fish"}

// cmdCompletion is `cockpit completion bash|zsh|fish`: the shell's completion script.
func (a *App) cmdCompletion(args []string) int {
	fs, _ := a.flags("completion")
	if code, ok := a.parseN(fs, args, 1); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return a.usageErr(fs, "name the shell: %s", strings.Join(shells, ", "))
	}
	script, ok := completionScripts[fs.Arg(0)]
	if !ok {
		return a.usageErr(fs, "unknown shell %q: cockpit completes in %s", fs.Arg(0), strings.Join(shells, ", "))
	}
	fmt.Fprint(a.Stdout, script)
	return exitOK
}

// cmdComplete answers a completion script: one candidate a line ("value\tdescription"), or
// a directive. It never fails loudly: what it cannot read it leaves out.
func (a *App) cmdComplete(words []string) int {
	if len(words) == 0 {
		words = []string{""}
	}
	for _, line := range a.complete(words[:len(words)-1], words[len(words)-1]) {
		fmt.Fprintln(a.Stdout, line)
	}
	return exitOK
}

// complete is what may follow the words before cur, filtered by cur's prefix.
func (a *App) complete(before []string, cur string) []string {
	home := homeIn(append(slices.Clone(before), cur))
	i := skipGlobals(before)
	if i == len(before) { // the verb (or a global flag) is being typed
		if strings.HasPrefix(cur, "-") {
			return matching(cur, []string{"--home\truntime root", "--help\tthe commands", "--version\tthis build"})
		}
		if len(before) > 0 && isFlagWord(before[len(before)-1], "home") {
			return []string{completeDirs}
		}
		var out []string
		for _, v := range verbs() {
			out = append(out, v.name+"\t"+v.summary)
		}
		return matching(cur, out)
	}
	name, rest := before[i], before[i+1:]
	if strings.HasPrefix(name, "-") { // `cockpit --headless …` is run
		name, rest = "run", before[i:]
	}
	v, ok := findVerb(name)
	if !ok {
		return nil
	}
	path := name
	if subs, ok := subcommands[name]; ok {
		var next []string
		path, rest, next = walkSubs(name, subs, rest)
		if next != nil {
			return matching(cur, next)
		}
	}
	c, ok := findCommand(path)
	if !ok || c.verb.name != v.name {
		return nil
	}
	return a.completeLeaf(c, rest, cur, home)
}

// walkSubs matches the words after a verb to one of its sub-verbs; next, when not nil, are
// the sub-verb words that may come next (the sub-verb is still being typed).
func walkSubs(verb string, subs, words []string) (path string, rest, next []string) {
	var typed []string
	for {
		var cands []string
		for _, s := range subs {
			f := strings.Fields(s)
			if len(f) > len(typed) && slices.Equal(f[:len(typed)], typed) && !slices.Contains(cands, f[len(typed)]) {
				cands = append(cands, f[len(typed)])
			}
		}
		if slices.Contains(subs, strings.Join(typed, " ")) {
			return verb + " " + strings.Join(typed, " "), words, nil
		}
		if len(words) == 0 {
			return "", nil, cands
		}
		if !slices.Contains(cands, words[0]) {
			return "", nil, []string{}
		}
		typed, words = append(typed, words[0]), words[1:]
	}
}

// completeLeaf completes a flag, a flag's value or a positional argument of command c.
func (a *App) completeLeaf(c command, rest []string, cur, home string) []string {
	if n := len(rest); n > 1 && rest[n-1] == "=" && flagOf(c.flags, rest[n-2]) != nil {
		rest = rest[:n-1] // bash splits "--broker=x" into "--broker", "=", "x"
	}
	if n := len(rest); n > 0 {
		if f := flagOf(c.flags, rest[n-1]); f != nil && !isBoolFlag(f) && !strings.Contains(rest[n-1], "=") {
			return a.flagValues(c, f, cur, home)
		}
	}
	if strings.HasPrefix(cur, "-") {
		if name, val, ok := strings.Cut(strings.TrimLeft(cur, "-"), "="); ok {
			if f := c.flags.Lookup(name); f != nil {
				var out []string
				for _, v := range a.flagValues(c, f, val, home) {
					if strings.HasPrefix(v, ":") {
						return nil
					}
					out = append(out, "--"+name+"="+v)
				}
				return out
			}
			return nil
		}
		var out []string
		for _, f := range flagNames(c.flags) {
			out = append(out, "--"+f.Name+"\t"+oneLine(f.Usage))
		}
		return matching(cur, out)
	}
	switch c.path {
	case "approvals approve", "approvals deny":
		return matching(cur, pendingReviews(a, home))
	case "completion":
		return matching(cur, shells)
	case "mandate validate", "broker profile check", "scan":
		return []string{completeFiles}
	}
	return nil
}

// valueChoices are the values a flag takes from a fixed set, by command and flag.
func valueChoices(path, name string) []string {
	agents := []string{"strategy", "replay", "llm", "plugin", "none"}
	switch path + " --" + name {
	case "run --agent", "serve-ssh --agent":
		return agents
	case "run --approvals", "serve-mcp --approvals":
		return []string{"none", "cli"}
	case "approvals list --state":
		return []string{"pending", "approved", "denied", "timed_out", "voided", "all"}
	case "audit export --format":
		return []string{"csv", "jsonl", "replay"}
	case "init --broker":
		return []string{"alpaca", "mcp"} // a kind, not a key
	case "check --side":
		return []string{"buy", "sell"}
	case "check --instrument":
		return instrumentNames()
	}
	return nil
}

// flagValues completes the value of flag f of command c.
func (a *App) flagValues(c command, f *flag.Flag, cur, home string) []string {
	if vs := valueChoices(c.path, f.Name); vs != nil {
		return matching(cur, vs)
	}
	switch {
	case f.Name == "broker":
		return matching(cur, brokerKeys(a, home))
	case f.Name == "home" || f.Name == "vibe":
		return []string{completeDirs}
	}
	if _, ok := f.Value.(flag.Getter).Get().(string); ok {
		return []string{completeFiles}
	}
	return nil // a number or a duration: nothing to offer
}

// safeWord is what a dynamic candidate may be: it reaches the shell and the terminal, so
// anything else (a control character, a quote, a space) is left out.
var safeWord = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,127}$`)

// completionRoot is the root whose config and store the completion reads: nothing when it
// does not exist or others could change it (StrictModes), so nothing is read from it.
func completionRoot(a *App, home string) (live.Root, bool) {
	root, err := a.root(home)
	if err != nil {
		return "", false
	}
	if _, err := os.Stat(root.Dir()); err != nil || session.CheckRoot(root) != nil {
		return "", false
	}
	return root, true
}

// brokerKeys are the broker keys of the root's config.toml and "paper"; none when the config
// cannot be read. Keys are table names, never a credential.
func brokerKeys(a *App, home string) []string {
	root, ok := completionRoot(a, home)
	if !ok {
		return nil
	}
	cfg, err := config.Load(root)
	if err != nil {
		return nil
	}
	keys := []string{live.PaperBroker}
	for k := range cfg.Brokers {
		if safeWord.MatchString(k) && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys[1:])
	return keys
}

// pendingReviews are the ids of the review items waiting, newest first, read from the store
// opened read-only (nothing is created or written); none when it cannot be read.
func pendingReviews(a *App, home string) []string {
	root, ok := completionRoot(a, home)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ids, err := store.PendingApprovalIDs(ctx, filepath.Join(root.Dir(), "cockpit.db"), 100)
	if err != nil {
		return nil
	}
	out := ids[:0]
	for _, id := range ids {
		if safeWord.MatchString(id) {
			out = append(out, id)
		}
	}
	return out
}

// homeIn is the --home the words give (the last one wins), "" when none.
func homeIn(words []string) string {
	home := ""
	for i, w := range words {
		if name, val, ok := strings.Cut(strings.TrimLeft(w, "-"), "="); strings.HasPrefix(w, "-") && name == "home" {
			if ok {
				home = val
			} else if i+1 < len(words) {
				home = words[i+1]
			}
		}
	}
	return home
}

// skipGlobals is the index of the first word after the leading global flags (--home DIR).
func skipGlobals(words []string) int {
	global, _ := globalFlags(words)
	if n := len(global); n > 0 && n <= len(words) && isFlagWord(words[n-1], "home") {
		return n - 1 // "--home" is last: its value is still being typed
	}
	return len(global)
}

// isFlagWord reports "-name" or "--name" (without a value).
func isFlagWord(w, name string) bool { return w == "-"+name || w == "--"+name }

// flagOf is the flag a word names ("--broker", "-broker"), nil when it names none.
func flagOf(fs *flag.FlagSet, w string) *flag.Flag {
	if !strings.HasPrefix(w, "-") || fs == nil {
		return nil
	}
	name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
	return fs.Lookup(name)
}

// findVerb is the verb named name.
func findVerb(name string) (verb, bool) {
	for _, v := range verbs() {
		if v.name == name {
			return v, true
		}
	}
	return verb{}, false
}

// matching keeps the candidates (before a tab) that start with prefix.
func matching(prefix string, cands []string) []string {
	out := []string{}
	for _, c := range cands {
		if value, _, _ := strings.Cut(c, "\t"); strings.HasPrefix(value, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// oneLine is a flag's usage on one line (a description column).
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
