package main

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"cockpit/engine/scan"
	"cockpit/live/jsonv"
	"cockpit/live/termsafe"
)

// cmdScan runs the injection scanner on a file or stdin: one line per finding (or JSON),
// optionally the neutralised text. It exits 3 when something was found.
func (a *App) cmdScan(args []string) int {
	fs, _ := a.flags("scan")
	asJSON := fs.Bool("json", false, "print {findings, changed, neutralized?} as JSON")
	neutralize := fs.Bool("neutralize", false, "print the text with control tokens neutralised (findings go to stderr)")
	if code, ok := a.parseN(fs, args, anyArgs); !ok {
		return code
	}
	src := "-"
	switch fs.NArg() {
	case 0:
	case 1:
		src = fs.Arg(0)
	default:
		return a.usageErr(fs, "give one FILE, or - (the default) for stdin")
	}
	data, err := a.readDoc(src)
	if err != nil {
		return a.failf("%v", err)
	}
	if !utf8.Valid(data) {
		data = []byte(strings.ToValidUTF8(string(data), "\ufffd"))
	}
	text := string(data)
	findings := scan.Scan(text)
	out, changed := scan.Neutralize(text)
	if *asJSON {
		list := make([]any, len(findings))
		for i, f := range findings {
			list[i] = scan.FindingJSON(f)
		}
		o := jsonv.ObjectOf("source", src, "findings", list, "changed", changed)
		if *neutralize {
			o.Set("neutralized", out)
		}
		fmt.Fprintln(a.Stdout, string(termsafe.JSON(jsonv.MustMarshal(o, jsonv.Compact))))
	} else {
		w := a.Stdout
		if *neutralize {
			w = a.Stderr
			fmt.Fprint(a.Stdout, out)
		}
		for _, f := range findings {
			fmt.Fprintf(w, "%-6s %-27s %q\n", f.Severity, f.RuleID, f.Match)
		}
		if len(findings) == 0 {
			fmt.Fprintln(w, "no findings")
		}
		if changed && !*neutralize {
			fmt.Fprintln(w, "control tokens present (use --neutralize to defang them)")
		}
	}
	if len(findings) > 0 {
		return exitNotAllow
	}
	return exitOK
}
