package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cockpit/internal/buildinfo"
	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/redact"
	"cockpit/live/termsafe"
	"cockpit/session"
)

// Exit codes.
const (
	exitOK       = 0
	exitFailure  = 1
	exitUsage    = 2
	exitNotAllow = 3
)

// App is the cockpit command: its streams, clock and environment are injectable so tests
// drive the real verbs on temporary homes.
type App struct {
	Stdin  *bufio.Reader
	Stdout io.Writer
	Stderr io.Writer
	Now    func() time.Time
	Getenv func(string) string
	// outcomeWait bounds how long `approvals approve` waits for the re-checked order (0: 10 s).
	outcomeWait time.Duration
	allowLive   bool // the run's --live flag
	// base is the context a run starts from (nil: Background); tests end a run with it.
	base context.Context
	// describe, when set, makes parseN store the command's FlagSet here and stop the
	// command before it does anything (completion and docs/cli.md read the flags so).
	describe **flag.FlagSet
}

// context is the context a long-running verb starts from.
func (a *App) context() context.Context {
	if a.base != nil {
		return a.base
	}
	return context.Background()
}

// NewApp returns an App on the given streams with the real clock and environment.
func NewApp(stdin io.Reader, stdout, stderr io.Writer) *App {
	return &App{Stdin: bufio.NewReader(stdin), Stdout: stdout, Stderr: stderr, Now: time.Now, Getenv: os.Getenv}
}

type verb struct {
	name, usage, summary string
	run                  func(a *App, args []string) int
}

func verbs() []verb {
	return []verb{
		{"run", "run [--headless] [--live] [--agent strategy|replay|llm|plugin|none] [--for 30s] [--approvals none|cli] [--script FILE] [--plugin FILE.wasm] [--no-mouse]", "the screen (or --headless) over the engine, the broker and the agent; also `cockpit` alone; exits 1 when it ended HALTED", (*App).cmdRun},
		{"status", "status [--broker B] [--json]", "halt and reduce-only state, mandates and today's order counts", (*App).cmdStatus},
		{"halt", "halt [--broker B] [--reason R] [--reduce-only]", "trip the kill switch (global unless --broker)", (*App).cmdHalt},
		{"resume", "resume [--broker B] --reason R [--reduce-only]", "clear a halt (or reduce-only) sentinel", (*App).cmdResume},
		{"mandate", "mandate show [--broker B] [--json] | validate FILE | commit --broker B --from FILE [--days N] | adopt --broker B | new [--broker B]", "inspect, validate, commit and adopt mandates", (*App).cmdMandate},
		{"check", "check --broker B --symbol S --side buy|sell (--notional N | --qty Q --price P | --live --qty Q) | --batch FILE|-", "what-if: evaluate orders against a mandate", (*App).cmdCheck},
		{"flatten", "flatten [--broker B] [--close-positions] [--reason R]", "halt, cancel every resting order, optionally close positions, verify", (*App).cmdFlatten},
		{"audit", "audit list [--since --type --order --code --json] | show SEQ | verify | export --format csv|jsonl|replay | rotate --reason R", "read and check the audit trail", (*App).cmdAudit},
		{"approvals", "approvals list [--state S] | approve ID [--reason R] | deny ID [--reason R]", "the review queue, from another terminal", (*App).cmdApprovals},
		{"trades", "trades [--day YYYY-MM-DD] [--broker B] [--json]", "a UTC day's fills from the audit trail, with the realised P&L of each round trip (FIFO lots)", (*App).cmdTrades},
		{"pnl", "pnl [--days N] [--broker B] [--json]", "daily realised and unrealised P&L from the audit trail's fills (FIFO; open positions at their last fill price)", (*App).cmdPnL},
		{"positions", "positions [--broker B] [--json]", "the broker's positions (a running cockpit's saved paper state while it owns the account)", (*App).cmdPositions},
		{"orders", "orders [--broker B] [--json]", "the broker's resting orders (likewise)", (*App).cmdOrders},
		{"attach", "attach --vibe DIR [--broker B] [--no-mouse]", "the screen over a Vibe-Trading root (its live/ files and audit_chain.jsonl), read-only: H halts it", (*App).cmdAttach},
		{"serve-mcp", "serve-mcp [--approvals none|cli] [--live] [--http 127.0.0.1:PORT [--allow-remote] [--allowed-hosts H,…] [--max-conns N]]", "serve the guarded broker tools to an outside agent over MCP (stdio, or streamable HTTP with a bearer token); every call goes through the gate", (*App).cmdServeMCP},
		{"serve-ssh", "serve-ssh [--listen 127.0.0.1:2222 [--allow-remote]] [--idle-timeout 15m] [--max-conns 32] [--agent A] [--live]", "serve the screen over SSH to the keys in <root>/ssh/authorized_keys, each with a role (viewer, operator, admin)", (*App).cmdServeSSH},
		{"scan", "scan [FILE|-] [--json] [--neutralize]", "run the prompt-injection scanner on text (exit 3 when it finds something)", (*App).cmdScan},
		{"fleet", "fleet serve [--listen ADDR [--allow-remote --tls-cert F --tls-key F]] [--for D] [--no-auth] | add-host NAME [--out FILE] | status [--broker B]", "a fleet on NATS JetStream: run a one-host server, or show hosts, halts and the day count", (*App).cmdFleet},
		{"broker", "broker tools --broker B [--json] | profile check FILE | profile list | profile show NAME", "an MCP broker's tools as cockpit treats them (class, extractor, tools its profile does not know); broker profiles, checked offline", (*App).cmdBroker},
		{"completion", "completion bash|zsh|fish", "a shell completion script: verbs, flags, broker keys and pending review ids (source <(cockpit completion bash))", (*App).cmdCompletion},
		{"init", "init [--broker alpaca|mcp]", "create the runtime root: config.toml and the default paper mandate (--broker: a real broker's table instead)", (*App).cmdInit},
	}
}

// Run dispatches a command line and returns the exit code. Global flags (--home) may come
// before the verb; `cockpit --home DIR` alone is `cockpit run --home DIR`.
func (a *App) Run(args []string) int {
	global, rest := globalFlags(args)
	if len(rest) == 0 {
		return a.cmdRun(global)
	}
	switch rest[0] {
	case "-h", "--help", "help":
		a.usage(a.Stdout)
		return exitOK
	case "--version", "-version":
		fmt.Fprintln(a.Stdout, buildinfo.Read())
		return exitOK
	case mcpPaperServerVerb: // hidden: a test and demo aid
		return a.cmdMCPPaperServer(rest[1:])
	case completeVerb: // hidden: the completion scripts call back
		return a.cmdComplete(rest[1:])
	case genDocVerb: // hidden: go generate writes docs/cli.md
		return a.cmdGenDoc(rest[1:])
	}
	if strings.HasPrefix(rest[0], "-") { // run's own flags
		return a.cmdRun(args)
	}
	for _, v := range verbs() {
		if v.name != rest[0] {
			continue
		}
		if hasSubcommands(v.name) && len(rest) > 1 && slices.Contains([]string{"-h", "--help", "help"}, rest[1]) {
			fmt.Fprintf(a.Stdout, "usage: cockpit %s\n  %s\nEach subcommand takes --help for its flags; every one takes --home DIR.\n", v.usage, v.summary)
			return exitOK
		}
		return v.run(a, withGlobals(rest[1:], global))
	}
	fmt.Fprintf(a.Stderr, "cockpit: unknown command %q\nRun `cockpit --help` for the commands.\n", rest[0])
	return exitUsage
}

// globalFlags splits leading global flags (--home DIR, --home=DIR) from the rest.
func globalFlags(args []string) (global, rest []string) {
	for len(args) > 0 {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
		if !strings.HasPrefix(args[0], "-") || name != "home" {
			break
		}
		if hasValue || len(args) == 1 {
			global, args = append(global, args[0]), args[1:]
			continue
		}
		global, args = append(global, args[0], args[1]), args[2:]
	}
	return global, args
}

// withGlobals hands global flags to a verb: after its arguments (so a subcommand stays
// first), before a "--" that ends its flags.
func withGlobals(args, global []string) []string {
	if len(global) == 0 {
		return args
	}
	if i := slices.Index(args, "--"); i >= 0 {
		return slices.Concat(args[:i], global, args[i:])
	}
	return slices.Concat(args, global)
}

// hasSubcommands reports a verb whose first argument is a subcommand.
func hasSubcommands(name string) bool {
	_, ok := subcommands[name]
	return ok
}

func (a *App) usage(w io.Writer) {
	fmt.Fprintln(w, "usage: cockpit <command> [flags]   (every command takes --home DIR; cockpit --version says which build this is)")
	fmt.Fprintln(w)
	for _, v := range verbs() {
		fmt.Fprintf(w, "  %-10s %s\n  %-10s   %s\n", v.name, v.summary, "", v.usage)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "The runtime root is --home, else $%s, else ~/.cockpit.\n", live.HomeEnv)
	fmt.Fprintln(w, "Exit codes: 0 ok, 1 failure, 2 usage, 3 check found an order that is not allowed or scan found an injection.")
}

// flags makes a FlagSet for a verb with the shared --home flag. Its errors go to stderr with
// the verb's usage line; --help prints the flags on stdout.
func (a *App) flags(name string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("cockpit "+name, flag.ContinueOnError)
	fs.SetOutput(a.Stderr)
	fs.Usage = func() {} // parse and usageErr say what is needed
	home := fs.String("home", "", "runtime root (default $"+live.HomeEnv+", else ~/.cockpit)")
	return fs, home
}

// anyArgs lets a verb count its positional arguments itself.
const anyArgs = int(^uint(0) >> 1)

// parse parses flags for a verb that takes no positional arguments.
func (a *App) parse(fs *flag.FlagSet, args []string) (int, bool) { return a.parseN(fs, args, 0) }

// parseN parses flags, which may come before or after positional arguments (`approvals deny
// ID --reason R`); the positional arguments, at most max, are left in fs.Args(). It returns
// false (and the exit code) on a usage error or after --help.
func (a *App) parseN(fs *flag.FlagSet, args []string, max int) (int, bool) {
	if a.describe != nil {
		*a.describe = fs
		return exitOK, false
	}
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				a.help(fs)
				return exitOK, false
			}
			a.shortUsage(fs)
			return exitUsage, false
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if rest[0] == "--" {
			positional = append(positional, rest[1:]...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	fs.Parse(append([]string{"--"}, positional...))
	if len(positional) > max {
		extra := positional[max:]
		return a.usageErr(fs, "unexpected argument %q", strings.Join(extra, " ")), false
	}
	return 0, true
}

// verbUsage is the usage line of the verb a flag set belongs to.
func verbUsage(fs *flag.FlagSet) (string, string) {
	name := strings.TrimPrefix(fs.Name(), "cockpit ")
	verb, _, _ := strings.Cut(name, " ")
	for _, v := range verbs() {
		if v.name == verb {
			return name, v.usage
		}
	}
	return name, name
}

// shortUsage is what a usage error prints after its message: the usage line and a hint.
func (a *App) shortUsage(fs *flag.FlagSet) {
	name, usage := verbUsage(fs)
	fmt.Fprintf(a.Stderr, "usage: cockpit %s\nRun `cockpit %s --help` for its flags.\n", usage, name)
}

// help prints a verb's usage line and flags on stdout.
func (a *App) help(fs *flag.FlagSet) {
	_, usage := verbUsage(fs)
	fmt.Fprintf(a.Stdout, "usage: cockpit %s\n\nflags:\n", usage)
	fs.SetOutput(a.Stdout)
	fs.PrintDefaults()
	fs.SetOutput(a.Stderr)
}

// root resolves --home, $COCKPIT_HOME or ~/.cockpit.
func (a *App) root(home string) (live.Root, error) {
	if home != "" {
		return live.NewRoot(home)
	}
	if h := a.Getenv(live.HomeEnv); strings.TrimSpace(h) != "" {
		return live.NewRoot(h)
	}
	dir, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no runtime root: %w (use --home or set %s)", err, live.HomeEnv)
	}
	return live.NewRoot(filepath.Join(dir, ".cockpit"))
}

// logger appends JSON lines to <root>/cockpit.log (session.OpenLog).
func (a *App) logger(root live.Root) (*slog.Logger, func()) { return session.OpenLog(root) }

func (a *App) failf(format string, args ...any) int {
	fmt.Fprintf(a.Stderr, "cockpit: %s\n", termsafe.Lines(redact.Secrets(fmt.Sprintf(format, args...))))
	return exitFailure
}

func (a *App) usageErr(fs *flag.FlagSet, format string, args ...any) int {
	msg := fmt.Sprintf("cockpit %s: "+format, append([]any{strings.TrimPrefix(fs.Name(), "cockpit ")}, args...)...)
	fmt.Fprintln(a.Stderr, termsafe.Lines(msg))
	a.shortUsage(fs)
	return exitUsage
}

// printJSON writes one JSON document and a newline; what an encoder leaves raw that a
// terminal acts on (DEL, C1 controls, invisible characters) is written as JSON escapes.
func (a *App) printJSON(v any) {
	a.Stdout.Write(append(jsonText(v), '\n'))
}

// jsonText is v as compact, terminal-safe JSON.
func jsonText(v any) []byte {
	b, err := jsonv.Marshal(v, jsonv.Compact)
	if err != nil {
		b, _ = jsonv.Marshal(v, jsonv.Python)
	}
	return termsafe.JSON(b)
}

// jsonList writes a list verb's --json output: one JSON array, each element on a line of its
// own ("[]" when the list is empty), so the output is always one valid JSON document and
// still a record per line for grep. Call end once, after the last add.
type jsonList struct {
	a *App
	n int
}

func (a *App) jsonList() *jsonList { return &jsonList{a: a} }

// add writes one element.
func (l *jsonList) add(v any) {
	sep := ",\n"
	if l.n == 0 {
		sep = "[\n"
	}
	l.n++
	l.a.Stdout.Write(append([]byte(sep), jsonText(v)...))
}

// end closes the array.
func (l *jsonList) end() {
	if l.n == 0 {
		l.a.Stdout.Write([]byte("[]\n"))
		return
	}
	l.a.Stdout.Write([]byte("\n]\n"))
}

// readLine reads one line of operator input (without the newline).
func (a *App) readLine() (string, error) {
	line, err := a.Stdin.ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}
