package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
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
		{"run", "run [--headless] [--agent strategy|replay|llm|none] [--for 30s] [--approvals none|cli] [--script FILE]", "the screen (or --headless) over the engine, the broker and the agent; also `cockpit` alone", (*App).cmdRun},
		{"status", "status [--broker B] [--json]", "halt and reduce-only state, mandates and today's order counts", (*App).cmdStatus},
		{"halt", "halt [--broker B] [--reason R] [--reduce-only]", "trip the kill switch (global unless --broker)", (*App).cmdHalt},
		{"resume", "resume [--broker B] --reason R [--reduce-only]", "clear a halt (or reduce-only) sentinel", (*App).cmdResume},
		{"mandate", "mandate show|validate|commit …", "inspect, validate and commit mandates", (*App).cmdMandate},
		{"check", "check --broker B --symbol S --side buy|sell (--notional N | --qty Q [--price P]) [--live] | --batch FILE|-", "what-if: evaluate orders against a mandate", (*App).cmdCheck},
		{"flatten", "flatten [--broker B] [--close-positions] [--reason R]", "halt, cancel every resting order, optionally close positions, verify", (*App).cmdFlatten},
		{"audit", "audit list [--since --type --order --code --json] | show SEQ | verify | export --format csv|jsonl|replay | rotate --reason R", "read and check the audit trail", (*App).cmdAudit},
		{"approvals", "approvals list [--state S] | approve ID [--reason R] | deny ID [--reason R]", "the review queue, from another terminal", (*App).cmdApprovals},
		{"scan", "scan [FILE|-] [--json] [--neutralize]", "run the prompt-injection scanner on text (exit 3 when it finds something)", (*App).cmdScan},
		{"init", "init", "create the runtime root: config.toml and the default paper mandate", (*App).cmdInit},
	}
}

// Run dispatches a command line and returns the exit code.
func (a *App) Run(args []string) int {
	if len(args) == 0 {
		return a.cmdRun(nil)
	}
	switch args[0] {
	case "-h", "--help", "help":
		a.usage(a.Stdout)
		return exitOK
	}
	if strings.HasPrefix(args[0], "-") { // `cockpit --home DIR` is `cockpit run --home DIR`
		return a.cmdRun(args)
	}
	for _, v := range verbs() {
		if v.name == args[0] {
			return v.run(a, args[1:])
		}
	}
	fmt.Fprintf(a.Stderr, "cockpit: unknown command %q\n\n", args[0])
	a.usage(a.Stderr)
	return exitUsage
}

func (a *App) usage(w io.Writer) {
	fmt.Fprintln(w, "usage: cockpit <command> [flags]   (every command takes --home DIR)")
	fmt.Fprintln(w)
	for _, v := range verbs() {
		fmt.Fprintf(w, "  %-10s %s\n  %-10s   %s\n", v.name, v.summary, "", v.usage)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "The runtime root is --home, else $%s, else ~/.cockpit.\n", live.HomeEnv)
	fmt.Fprintln(w, "Exit codes: 0 ok, 1 failure, 2 usage, 3 check found an order that is not allowed or scan found an injection.")
}

// flags makes a FlagSet for a verb with the shared --home flag.
func (a *App) flags(name string) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("cockpit "+name, flag.ContinueOnError)
	fs.SetOutput(a.Stderr)
	home := fs.String("home", "", "runtime root (default $"+live.HomeEnv+", else ~/.cockpit)")
	return fs, home
}

// parse parses flags, which may come before or after positional arguments (`approvals deny
// ID --reason R`); the positional arguments are left in fs.Args(). It returns false (and the
// exit code) on a usage error.
func (a *App) parse(fs *flag.FlagSet, args []string) (int, bool) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return exitOK, false
			}
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
	return 0, true
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

// logger appends JSON lines to <root>/cockpit.log; a log that cannot be opened is discarded
// rather than written to the terminal.
func (a *App) logger(root live.Root) (*slog.Logger, func()) {
	if err := os.MkdirAll(root.Dir(), 0o700); err == nil {
		f, err := os.OpenFile(filepath.Join(root.Dir(), "cockpit.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err == nil {
			return slog.New(slog.NewJSONHandler(f, nil)), func() { f.Close() }
		}
	}
	return slog.New(slog.NewJSONHandler(io.Discard, nil)), func() {}
}

func (a *App) failf(format string, args ...any) int {
	fmt.Fprintf(a.Stderr, "cockpit: "+format+"\n", args...)
	return exitFailure
}

func (a *App) usageErr(fs *flag.FlagSet, format string, args ...any) int {
	fmt.Fprintf(a.Stderr, "cockpit %s: "+format+"\n", append([]any{strings.TrimPrefix(fs.Name(), "cockpit ")}, args...)...)
	fs.Usage()
	return exitUsage
}

// printJSON writes one JSON document and a newline.
func (a *App) printJSON(v any) {
	b, err := jsonv.Marshal(v, jsonv.Compact)
	if err != nil {
		b, _ = jsonv.Marshal(v, jsonv.Python)
	}
	a.Stdout.Write(append(b, '\n'))
}

// readLine reads one line of operator input (without the newline).
func (a *App) readLine() (string, error) {
	line, err := a.Stdin.ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}
