package main

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"cockpit/config"
	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/mcpbroker"
)

// cmdBroker is `cockpit broker tools --broker B [--json]` (connect to a kind = "mcp" broker's
// server and show how cockpit treats each tool it lists) and `cockpit broker profile
// check FILE | list | show NAME` (broker profiles, offline).
func (a *App) cmdBroker(args []string) int {
	if len(args) == 0 {
		return a.brokerUsage()
	}
	switch args[0] {
	case "tools":
		return a.brokerTools(args[1:])
	case "profile":
		if len(args) > 1 {
			switch args[1] {
			case "check":
				return a.profileCheck(args[2:])
			case "list":
				return a.profileList(args[2:])
			case "show":
				return a.profileShow(args[2:])
			}
		}
	}
	return a.brokerUsage()
}

func (a *App) brokerUsage() int {
	fmt.Fprintln(a.Stderr, "usage: cockpit broker tools --broker B [--json] | profile check FILE | profile list | profile show NAME")
	return exitUsage
}

// brokerTool is one line of `broker tools`.
type brokerTool struct {
	name, class, extractor string
	known                  bool // the profile's map names it
}

// brokerTools connects to the broker's server, lists its tools and prints each with its
// class (READ runs without the gate), its extractor or "denied: no extractor", and a flag
// on tools the profile does not know; exit 1 when the server lists any such tool.
func (a *App) brokerTools(args []string) int {
	p, fs := a.preamble("broker tools")
	p.withBroker("", "the [brokers.B] table (kind = \"mcp\") whose server to list")
	asJSON := fs.Bool("json", false, "one JSON object")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	if p.key == "" {
		return a.usageErr(fs, "--broker is required")
	}
	rt, code, ok := p.open("")
	if !ok {
		return code
	}
	defer rt.close()
	if bc, ok := rt.Config.Broker(p.key); !ok || bc.Kind != config.KindMCP {
		return a.failf("broker tools: [brokers.%s] is not a kind = \"mcp\" table in %s", p.key, config.Path(rt.Root))
	}
	b, release, err := rt.openBroker(p.key)
	if err != nil {
		return a.failf("broker tools: %v", err)
	}
	defer release()
	mb := b.(*mcpbroker.Broker)
	var rows []brokerTool
	unknown := 0
	for _, t := range rt.BrokerTools(b, p.key) {
		_, known := mb.Profile.Tools[t.Name]
		r := brokerTool{name: t.Name, class: string(t.Class), known: known, extractor: "-"}
		switch {
		case mb.Profile.HasExtractor(t.Name):
			r.extractor = "extractor"
		case t.Class.IsWrite():
			r.extractor = "denied: no extractor"
		}
		if !known {
			unknown++
		}
		rows = append(rows, r)
	}
	if *asJSON {
		a.printToolsJSON(p.key, mb.Profile, rows)
	} else {
		a.printToolsTable(p.key, mb.Profile, rows, unknown)
	}
	if unknown > 0 {
		return exitFailure
	}
	return exitOK
}

func (a *App) printToolsTable(key string, prof *live.Profile, rows []brokerTool, unknown int) {
	fmt.Fprintf(a.Stdout, "[brokers.%s] profile %s: %d tools listed by the server\n", key, prof.Name, len(rows))
	fmt.Fprintf(a.Stdout, "%-32s %-8s %s\n", "TOOL", "CLASS", "EXTRACTOR")
	for _, r := range rows {
		name := r.name
		if !plainToolName.MatchString(name) {
			name = strconv.QuoteToASCII(name)
		}
		note := ""
		if !r.known {
			note = "  ! not in the profile"
		}
		fmt.Fprintf(a.Stdout, "%-32s %-8s %s%s\n", name, strings.ToUpper(r.class), r.extractor, note)
	}
	if unknown > 0 {
		fmt.Fprintf(a.Stdout, "%d tools the profile does not know: gated, and denied until the profile maps them.\n", unknown)
	}
}

func (a *App) printToolsJSON(key string, prof *live.Profile, rows []brokerTool) {
	list := make([]any, 0, len(rows))
	for _, r := range rows {
		list = append(list, jsonv.ObjectOf("name", r.name, "class", r.class, "gated", live.ToolClass(r.class).IsWrite(),
			"extractor", r.extractor == "extractor", "in_profile", r.known))
	}
	out := jsonv.ObjectOf("broker", key, "profile", prof.Name, "tools", list)
	fmt.Fprintln(a.Stdout, string(jsonv.MustMarshal(out, jsonv.Compact)))
}

// profileCheck validates a profile file offline and prints what it maps.
func (a *App) profileCheck(args []string) int {
	p, fs := a.preamble("broker profile check")
	if code, ok := p.parse(args, 1); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return a.usageErr(fs, "want the profile file: cockpit broker profile check FILE")
	}
	data, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return a.failf("broker profile check: %v", err)
	}
	prof, err := live.ParseProfile(data)
	if err != nil {
		return a.failf("%s: %v", fs.Arg(0), err)
	}
	a.describeProfile(prof)
	return exitOK
}

// describeProfile prints a profile's maps: reads, order tools and the writes it denies.
func (a *App) describeProfile(prof *live.Profile) {
	var reads, orders, denied []string
	for _, t := range sortedTools(prof.Tools) {
		switch {
		case !prof.Tools[t].IsWrite():
			reads = append(reads, t)
		case prof.HasExtractor(t):
			orders = append(orders, t)
		default:
			denied = append(denied, t)
		}
	}
	fmt.Fprintf(a.Stdout, "profile %s: ok\n", prof.Name)
	fmt.Fprintf(a.Stdout, "  read (no gate):             %s\n", orNone(reads))
	fmt.Fprintf(a.Stdout, "  orders (gated, extractor):  %s\n", orNone(orders))
	fmt.Fprintf(a.Stdout, "  write, denied (no extractor): %s\n", orNone(denied))
	fmt.Fprintf(a.Stdout, "  quote %s, positions %s, account %s, open orders %s, cancel %s\n", orDash(prof.QuoteTool),
		orDash(prof.PositionsTool), orDash(prof.AccountTool), orDash(prof.OrdersTool), orDash(prof.CancelTool))
	if prof.ToolsAuthoritative {
		fmt.Fprintln(a.Stdout, "  authoritative: a tool not listed is UNKNOWN (gated, denied)")
	}
	if len(prof.Vars) > 0 {
		fmt.Fprintf(a.Stdout, "  needs profile_vars: %s\n", strings.Join(prof.Vars, ", "))
	}
}

func (a *App) profileList(args []string) int {
	p, _ := a.preamble("broker profile list")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	for _, n := range live.ProfileNames() {
		fmt.Fprintf(a.Stdout, "%-12s %s\n", n, live.Profiles()[n].About)
	}
	return exitOK
}

func (a *App) profileShow(args []string) int {
	p, fs := a.preamble("broker profile show")
	if code, ok := p.parse(args, 1); !ok {
		return code
	}
	data, ok := live.EmbeddedProfile(fs.Arg(0))
	if fs.NArg() != 1 || !ok {
		return a.usageErr(fs, "want a shipped profile's name (%s)", strings.Join(live.ProfileNames(), ", "))
	}
	a.Stdout.Write(data)
	return exitOK
}

func sortedTools(m map[string]live.ToolClass) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
