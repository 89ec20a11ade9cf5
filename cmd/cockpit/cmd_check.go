package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/readmodel"
)

// cmdCheck evaluates orders without sending them: one order through the runtime's gate in
// dry-run mode (offline on the book the flags describe, or --live on the broker's), or a
// JSONL batch of self-contained what-ifs. It prints one JSON verdict per order
// ({"id","verdict","kind","limit","limit_value","attempted_value","overage","detail"}).
func (a *App) cmdCheck(args []string) int {
	p, fs := a.preamble("check")
	batch := fs.String("batch", "", "JSONL file of what-ifs (check_mandate case shape), - for stdin")
	broker := fs.String("broker", live.PaperBroker, "broker whose committed mandate applies")
	symbol := fs.String("symbol", "", "symbol")
	side := fs.String("side", "", "buy or sell")
	notional := fs.String("notional", "", "order value in USD")
	qty := fs.String("qty", "", "quantity (offline it needs --price; --live asks the broker)")
	price := fs.String("price", "", "price per unit used to value a quantity")
	instrument := fs.String("instrument", "equity", "instrument type: "+strings.Join(instrumentNames(), ", "))
	assetClass := fs.String("asset-class", "", "asset class (default: the instrument's bucket)")
	positions := fs.String("positions", "[]", "current positions: a JSON payload or @FILE")
	id := fs.String("id", "cli", "id echoed in the verdict")
	liveMode := fs.Bool("live", false, "ask the broker: its quote values a quantity, its positions replace --positions (nothing is sent)")
	human := fs.Bool("explain", false, "also print a sentence for people on stderr")
	equity := fs.String("equity", "", "the account's equity now, for the mandate's loss limits (offline; --live reads the broker's)")
	if code, ok := p.parse(args, 0); !ok {
		return code
	}
	if *batch != "" {
		return a.checkBatch(*batch)
	}
	if *symbol == "" || *side == "" || (*notional == "" && *qty == "") {
		return a.usageErr(fs, "give --symbol, --side and --notional or --qty (or --batch FILE)")
	}
	if s := strings.ToLower(strings.TrimSpace(*side)); s != live.Buy && s != live.Sell {
		return a.usageErr(fs, "--side %q: want buy or sell", *side)
	}
	if *qty != "" && *price == "" && !*liveMode {
		return a.usageErr(fs, "--qty needs --price to value it offline (or --live for the broker's quote)")
	}
	intent, err := cliIntent(*symbol, *side, *notional, *qty, *price, *instrument, *assetClass)
	if err != nil {
		return a.usageErr(fs, "%v", err)
	}
	var book *offlineBook
	if !*liveMode {
		payload, err := a.positionsPayload(*positions)
		if err != nil {
			return a.usageErr(fs, "--positions: %v", err)
		}
		book = &offlineBook{positions: payload, now: a.Now}
		if *price != "" {
			px, _ := money.Parse(*price) // cliIntent checked it
			book.price = &px
		}
		if *equity != "" {
			v, err := money.Parse(*equity)
			if err != nil || v.Sign() <= 0 {
				return a.usageErr(fs, "--equity %q: want a positive number (the account's equity in USD)", *equity)
			}
			book.equity = &v
		}
	} else if *equity != "" {
		return a.usageErr(fs, "--equity is for an offline check: --live reads the broker's equity")
	}
	key, err := live.NormalizeBroker(*broker)
	if err != nil {
		return a.usageErr(fs, "--broker: %v", err)
	}
	rt, code, ok := p.open("")
	if !ok {
		return code
	}
	defer rt.close()
	if book != nil {
		book.key = key
		book.marks = func() (live.EquityMark, bool, error) { return readmodel.DayMark(rt.Root, rt.DB, key) }
		return a.whatIf(rt, book, key, intent, *id, *human)
	}
	b, release, err := rt.openBroker(key)
	if err != nil {
		return a.failf("%v", err)
	}
	defer release()
	return a.whatIf(rt, b, key, intent, *id, *human)
}

func instrumentNames() []string {
	out := make([]string, len(live.InstrumentTypes))
	for i, t := range live.InstrumentTypes {
		out[i] = string(t)
	}
	return out
}

// cliIntent builds and values an intent from flags: a quantity is priced with --price, and
// the larger of the explicit and implied notional counts (as the gate does).
func cliIntent(symbol, side, notional, qty, price, instrument, class string) (live.OrderIntent, error) {
	in := live.OrderIntent{Symbol: symbol, Side: strings.ToLower(strings.TrimSpace(side)),
		InstrumentType: live.InstrumentType(instrument), AssetClass: live.AssetClass(class)}
	if !in.InstrumentType.Valid() {
		return in, fmt.Errorf("--instrument %q: want one of %s", instrument, strings.Join(instrumentNames(), ", "))
	}
	if class != "" && !in.AssetClass.Valid() {
		return in, fmt.Errorf("--asset-class %q is not an asset class", class)
	}
	parse := func(flag, s string) (*money.Amount, error) {
		if s == "" {
			return nil, nil
		}
		v, err := money.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("--%s: %v", flag, err)
		}
		if v.Sign() <= 0 {
			return nil, fmt.Errorf("--%s %s: must be positive", flag, s)
		}
		return &v, nil
	}
	var err error
	if in.NotionalUSD, err = parse("notional", notional); err != nil {
		return in, err
	}
	if in.Quantity, err = parse("qty", qty); err != nil {
		return in, err
	}
	p, err := parse("price", price)
	if err != nil {
		return in, err
	}
	if in.Quantity != nil && p != nil {
		implied := live.ImpliedNotional(in, *p) // an option contract is 100 shares
		if in.NotionalUSD == nil || implied.GreaterThan(*in.NotionalUSD) {
			in.NotionalUSD = &implied
		}
	}
	return in, nil
}

func (a *App) positionsPayload(spec string) (any, error) {
	data := []byte(spec)
	if strings.HasPrefix(spec, "@") {
		var err error
		if data, err = os.ReadFile(spec[1:]); err != nil {
			return nil, err
		}
	}
	return jsonv.Parse(data, jsonv.Options{NonFinite: true})
}

// batchLineLimit bounds one --batch line; a longer line gets an error verdict and the batch
// goes on.
var batchLineLimit = 1 << 20

// checkBatch evaluates a JSONL file of what-ifs; a line that cannot be read is denied (with
// its id when it has one, else "line N"), and the batch goes on.
func (a *App) checkBatch(path string) int {
	var r io.Reader = a.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return a.failf("%v", err)
		}
		defer f.Close()
		r = f
	}
	br := newBatchReader(r, batchLineLimit)
	// A batch keeps little alive (one line at a time) and allocates a lot; collecting less
	// often saves most of the collector's work for about 15 MB more memory.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	// One write per verdict would be one syscall per line; the verdicts are buffered and
	// flushed when the batch ends (or fails). Chunks of lines are evaluated on every CPU and
	// written in input order.
	out := bufio.NewWriterSize(a.Stdout, 64<<10)
	defer out.Flush()
	p := newBatchPipeline(out)
	var chunk []batchItem
	for n := 1; ; n++ {
		line, tooLong, ok := br.next()
		if !ok {
			break
		}
		if line != "" || tooLong {
			chunk = append(chunk, batchItem{n: n, line: line, tooLong: tooLong})
		}
		if len(chunk) == batchChunk {
			p.submit(chunk)
			chunk = nil
		}
	}
	p.submit(chunk)
	notAllow := p.wait()
	if br.err != io.EOF {
		out.Flush()
		return a.failf("reading %s: %v", path, br.err)
	}
	if notAllow {
		return exitNotAllow
	}
	return exitOK
}

func badLine(id string, n int, err error) live.WhatIfResult {
	if id == "" {
		id = fmt.Sprintf("line %d", n)
	}
	return live.WhatIfResult{ID: id, Verdict: live.Deny, Breach: &live.Breach{Kind: "invalid_input", Detail: err.Error()}}
}

func batchLine(line string, n int) live.WhatIfResult {
	// A repeated key is ambiguous (which value did the author mean?): an error, as in a mandate.
	// A line is parsed once, strictly; only a line that fails is parsed again, leniently, to
	// tell a syntax error (no id) from a repeated key (reported with the line's id).
	doc, err := jsonv.ParseString(line, jsonv.Options{NonFinite: true, RejectDuplicates: true})
	if err != nil {
		lenient, lerr := jsonv.ParseString(line, jsonv.Options{NonFinite: true})
		if lerr != nil {
			return badLine("", n, lerr)
		}
		o, ok := lenient.(*jsonv.Object)
		if !ok {
			return badLine("", n, errors.New("a line must be a JSON object"))
		}
		sid, _ := o.Value("id").(string)
		return badLine(sid, n, fmt.Errorf("line %d: %v", n, err))
	}
	o, ok := doc.(*jsonv.Object)
	if !ok {
		return badLine("", n, errors.New("a line must be a JSON object"))
	}
	sid, _ := o.Value("id").(string)
	w, err := live.WhatIfFromJSON(o)
	if err != nil {
		return badLine(sid, n, err)
	}
	if w.ID == "" {
		w.ID = fmt.Sprintf("line %d", n)
	}
	return live.EvaluateWhatIf(context.Background(), w)
}

// explain is one sentence for people about a verdict.
func explain(r live.WhatIfResult) string {
	return verdictSentence(r) + lossSentence(r.Loss)
}

func verdictSentence(r live.WhatIfResult) string {
	if r.Breach == nil {
		return "ALLOW: the order is inside the mandate."
	}
	b := r.Breach
	switch r.Verdict {
	case live.PauseForReauth:
		return cell(fmt.Sprintf("PAUSE_FOR_REAUTH: %s — a human would have to approve this breach.", b.Message()))
	}
	return cell(fmt.Sprintf("DENY (%s): %s", b.Kind, b.Message()))
}

// lossSentence says where each loss limit stands ("" without loss limits).
func lossSentence(l *live.LossLimits) string {
	if l == nil || len(l.Gauges) == 0 {
		return ""
	}
	if l.Err != nil {
		return "\nLoss limits: unknown (" + cell(l.Err.Error()) + "): orders that add exposure are denied."
	}
	parts := make([]string, len(l.Gauges))
	for i, g := range l.Gauges {
		parts[i] = g.Describe(*l)
	}
	return "\nLoss limits: " + strings.Join(parts, "; ") + "."
}
