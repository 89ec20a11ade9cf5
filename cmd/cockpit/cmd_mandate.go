package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"cockpit/live"
	"cockpit/live/mandatefile"
	"cockpit/live/money"
	"cockpit/session"
)

func (a *App) cmdMandate(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(a.Stderr, "usage: cockpit mandate show [--broker B] [--json] | validate FILE | commit --broker B --from FILE | adopt --broker B | new [--broker B]")
		return exitUsage
	}
	switch args[0] {
	case "show":
		return a.mandateShow(args[1:])
	case "validate":
		return a.mandateValidate(args[1:])
	case "commit":
		return a.mandateCommit(args[1:])
	case "adopt":
		return a.mandateAdopt(args[1:])
	case "new":
		return a.mandateNew(args[1:])
	}
	fmt.Fprintf(a.Stderr, "cockpit mandate: unknown subcommand %q (show, validate, commit, adopt, new)\n", args[0])
	return exitUsage
}

func (a *App) mandateShow(args []string) int {
	p, fs := a.preamble("mandate show")
	broker := fs.String("broker", live.PaperBroker, "broker whose committed mandate to show")
	asJSON := fs.Bool("json", false, "print the mandate document")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	root, code, ok := p.root()
	if !ok {
		return code
	}
	ledger, closeLedger := openLedger(root)
	defer closeLedger()
	c := mandatefile.Read(context.Background(), root, ledger, *broker)
	m, err := c.Mandate, c.Err
	if c.State == live.MandateMissing {
		return a.failf("no mandate committed for %s (commit one with `cockpit mandate commit --broker %s --from FILE`)", *broker, *broker)
	}
	if m == nil {
		return a.failf("the mandate on file for %s is not valid, and the gate refuses every order: %v", *broker, err)
	}
	if *asJSON {
		a.printJSON(m.Document())
	} else {
		fmt.Fprint(a.Stdout, describeMandate(m, a.Now()))
	}
	if !c.Verified() { // DV13: the limits above are not the ones consented to, or no one knows
		return a.failf("the gate refuses every order for %s: %s", *broker, c.Describe())
	}
	if !*asJSON {
		fmt.Fprintf(a.Stdout, "  Integrity           verified (sha256 %s)\n", c.Hash)
	}
	return exitOK
}

// describeMandate renders a mandate for a person deciding whether to commit or keep it; the
// file's own words (its id, symbols, dates, account) show their control characters escaped.
func describeMandate(m *live.Mandate, now time.Time) string {
	var b strings.Builder
	h, u := m.HardCaps, m.Universe
	if m.MandateID != "" {
		fmt.Fprintf(&b, "Mandate %s\n", cell(m.MandateID))
	}
	fmt.Fprintf(&b, "  Funding ceiling     $%s\n", h.AccountFundingUSD)
	fmt.Fprintf(&b, "  Max per order       $%s\n", h.MaxOrderNotionalUSD)
	fmt.Fprintf(&b, "  Max total exposure  $%s (gross, after the order)\n", h.MaxTotalExposureUSD)
	fmt.Fprintf(&b, "  Max leverage        %sx\n", h.MaxLeverage)
	fmt.Fprintf(&b, "  Orders per day      %d (UTC day)\n", h.MaxTradesPerDay)
	fmt.Fprintf(&b, "  Instruments         %s\n", joinOr(h.AllowedInstruments, "none (every order is denied)"))
	fmt.Fprintf(&b, "  Asset classes       %s\n", joinOr(u.AssetClasses, "none (bucketed instruments are denied)"))
	fmt.Fprintf(&b, "  Min market cap      %s\n", floorText(u.MinMarketCapUSD))
	fmt.Fprintf(&b, "  Min avg $ volume    %s\n", floorText(u.MinAvgDailyVolumeUSD))
	fmt.Fprintf(&b, "  Excluded symbols    %s\n", cell(joinOr(u.ExcludeSymbols, "none")))
	fmt.Fprintf(&b, "  On halt             %s\n", map[bool]string{true: "cancel orders and close positions", false: "cancel orders only"}[m.FlattenOnHalt])
	if m.HasControls {
		c := m.Controls
		if c.MaxOrderQuantity != nil {
			fmt.Fprintf(&b, "  Max order quantity  %s\n", c.MaxOrderQuantity)
		}
		if c.PriceCollarBps != nil {
			fmt.Fprintf(&b, "  Price collar        %s bps from the quote\n", c.PriceCollarBps)
		}
		if c.MaxQuoteAgeMs != nil {
			fmt.Fprintf(&b, "  Max quote age       %d ms\n", *c.MaxQuoteAgeMs)
		}
		if c.DuplicateWindowMs != nil {
			fmt.Fprintf(&b, "  Duplicate window    %d ms\n", *c.DuplicateWindowMs)
		}
		if c.MaxOrdersPerMinute != nil {
			fmt.Fprintf(&b, "  Orders per minute   %d\n", *c.MaxOrdersPerMinute)
		}
	}
	fmt.Fprintf(&b, "  Breach review       %s before an unanswered breach is denied\n", m.Controls.ApprovalTimeout())
	if m.Consent.ExpiresAt != "" {
		status := ""
		if exp, err := m.Expiry(); err != nil {
			status = " (unparseable: treated as expired)"
		} else if !now.Before(exp) {
			status = " (EXPIRED)"
		} else {
			status = " (in " + humanDuration(exp.Sub(now)) + ")"
		}
		fmt.Fprintf(&b, "  Expires             %s%s\n", cell(m.Consent.ExpiresAt), status)
		fmt.Fprintf(&b, "  Broker / account    %s / %s\n", cell(m.Consent.Broker), cell(orUnknown(m.Consent.AccountRef)))
	}
	return b.String()
}

func joinOr[T ~string](xs []T, none string) string {
	if len(xs) == 0 {
		return none
	}
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = string(x)
	}
	return strings.Join(parts, ", ")
}

func floorText(a *money.Amount) string {
	if a == nil {
		return "no floor"
	}
	return "$" + a.String()
}

// readDoc reads FILE, or stdin for "-".
func (a *App) readDoc(path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(a.Stdin)
	}
	return os.ReadFile(path)
}

// parseDraft validates a full mandate (with consent) or an operator draft (caps and universe):
// unknown keys and an unreadable expiry are errors.
func parseDraft(data []byte) (*live.Mandate, error) { return live.ParseMandateDraft(data) }

func (a *App) mandateValidate(args []string) int {
	fs, _ := a.flags("mandate validate")
	if code, ok := a.parseN(fs, args, anyArgs); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return a.usageErr(fs, "give exactly one FILE (or - for stdin)")
	}
	data, err := a.readDoc(fs.Arg(0))
	if err != nil {
		return a.failf("%v", err)
	}
	m, err := parseDraft(data)
	if err != nil {
		fmt.Fprintf(a.Stdout, "%s: INVALID\n  %s\n", fs.Arg(0), cell(err.Error()))
		return exitFailure
	}
	fmt.Fprintf(a.Stdout, "%s: valid\n%s", fs.Arg(0), describeMandate(m, a.Now()))
	return exitOK
}

func (a *App) mandateCommit(args []string) int {
	p, fs := a.preamble("mandate commit")
	broker := fs.String("broker", "", "broker the mandate binds (required)")
	from := fs.String("from", "", "mandate file: hard_caps, universe, optional controls and flatten_on_halt (required; - for stdin)")
	days := fs.Int("days", 30, "lifetime in days (1–365)")
	accountRef := fs.String("account-ref", "", "opaque account reference (not a credential)")
	yes := fs.Bool("yes", false, "skip typing the broker name (paper only, unless --i-understand-this-is-live)")
	live_ := fs.Bool("i-understand-this-is-live", false, "allow --yes for a live broker")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	if *broker == "" || *from == "" {
		return a.usageErr(fs, "--broker and --from are required")
	}
	if *days < 1 || *days > 365 {
		return a.usageErr(fs, "--days %d: must be between 1 and 365", *days)
	}
	key, err := live.NormalizeBroker(*broker)
	if err != nil {
		return a.usageErr(fs, "--broker: %v", err)
	}
	isLive := !live.IsPaperBroker(key)
	if *yes && isLive && !*live_ {
		return a.usageErr(fs, "%s is a live broker: --yes also needs --i-understand-this-is-live", key)
	}
	root, code, ok := p.root()
	if !ok {
		return code
	}
	data, err := a.readDoc(*from)
	if err != nil {
		return a.failf("%v", err)
	}
	draft, err := parseDraft(data)
	if err != nil {
		return a.failf("%s is not a valid mandate, nothing was committed: %v", *from, err)
	}
	badge := "PAPER"
	if isLive {
		badge = "LIVE — real money"
	}
	fmt.Fprintf(a.Stdout, "About to commit this mandate for %s [%s], valid for %d days:\n%s", key, badge, *days, describeMandate(draft, a.Now()))
	if !*yes {
		if *from == "-" {
			return a.failf("the mandate came from stdin, so the confirmation cannot: use --yes (and --i-understand-this-is-live for a live broker)")
		}
		fmt.Fprintf(a.Stdout, "Type the broker name (%s) to confirm, anything else to cancel: ", key)
		line, err := a.readLine()
		if err != nil || strings.TrimSpace(line) != key {
			fmt.Fprintln(a.Stdout, "\nNot confirmed — nothing was committed.")
			return exitFailure
		}
	}
	rt, code, ok := p.open("cannot commit without the audit trail: ")
	if !ok {
		return code
	}
	defer rt.close()
	res, err := session.CommitMandate(rt.Runtime, key, data, *from, *days, *accountRef, live.Operator(operatorName(), "cli"))
	switch {
	case res == nil:
		return a.failf("commit failed: %v", err)
	case err != nil:
		return a.failf("%v", err)
	}
	fmt.Fprintf(a.Stdout, "Mandate %s active for %s until %s.\nConsent record %s; file %s\n",
		res.MandateID, key, res.ExpiresAt, res.ConsentRecordID, root.MandatePath(key))
	return exitOK
}
