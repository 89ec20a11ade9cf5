package live

import (
	"fmt"
	"strconv"
	"strings"

	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/pystr"
)

// profile turns a checked spec into a Profile (placeholders still unbound).
func (s *ProfileSpec) profile() *Profile {
	p := &Profile{
		Name:               s.Name,
		About:              s.About,
		ToolsAuthoritative: s.Authoritative,
		Vars:               s.Vars,
		QuoteTool:          s.Reads.Quote,
		PositionsTool:      s.Reads.Positions,
		AccountTool:        s.Reads.Account,
		OrdersTool:         s.Reads.Orders,
		OrderTool:          s.Reads.Order,
		OrderToolArg:       s.Reads.OrderIDArg,
		BarsTool:           s.Reads.Bars,
		PlaceTool:          s.Orders.Place,
		CancelTool:         s.Orders.Cancel,
		CancelIDArg:        s.Orders.CancelIDArg,
		PositionFields:     s.Reads.PositionFields,
		ParseQuote:         ParseMCPQuote,
		spec:               s,
	}
	if len(s.Tools) > 0 {
		p.Tools = make(map[string]ToolClass, len(s.Tools))
		for t, c := range s.Tools {
			p.Tools[t] = ToolClass(c)
		}
	}
	if s.Reads.QuoteParser == "alpaca" {
		p.ParseQuote = parseAlpacaQuote
	}
	if paths := s.Reads.QuotePrice; len(paths) > 0 {
		p.ParseQuote = func(payload any, _ string) (money.Amount, bool) { return priceAt(payload, paths) }
	}
	if s.Reads.QuoteCrypto != "" || s.Reads.QuoteOption != "" {
		crypto, option := s.Reads.QuoteCrypto, s.Reads.QuoteOption
		p.QuoteToolFor = func(symbol string) string {
			sym := pystr.Upper(pystr.Strip(symbol))
			switch {
			case strings.Contains(sym, "/"):
				return crypto
			case occSymbol.MatchString(sym):
				return option
			}
			return ""
		}
	}
	p.bindData(s.Extract, s.Reads.Args, nil)
	if s.Build != nil {
		b := *s.Build
		p.BuildOrder = b.build
	}
	if o := s.Orders; o.ErrorMember != "" || len(o.ErrorPrefixes) > 0 {
		p.ReplyError = o.replyError
	}
	return p
}

// bindData sets the extractor and read arguments with placeholders replaced by sub.
func (p *Profile) bindData(extract map[string]extractSpec, readArgs map[string]map[string]any, sub func(string) string) {
	if sub == nil {
		sub = func(s string) string { return s }
	}
	ex := make(map[string]*extractSpec, len(extract))
	p.OrderTools = make(map[string]bool, len(extract))
	for t, e := range extract {
		e.Reject = bindConds(e.Reject, sub)
		ex[t] = &e
		p.OrderTools[t] = true
	}
	p.Extract = func(tool string, args *jsonv.Object) (OrderIntent, bool) {
		e, ok := ex[tool]
		if !ok {
			return OrderIntent{}, false
		}
		return e.extract(args)
	}
	p.ReadArgs = make(map[string]*jsonv.Object, len(readArgs))
	for t, kv := range readArgs {
		o := jsonv.NewObject()
		for _, k := range sortedKeys(kv) {
			switch v := kv[k].(type) {
			case string:
				o.Set(k, sub(v))
			case int64:
				o.Set(k, jsonv.Number(strconv.FormatInt(v, 10)))
			default:
				o.Set(k, v)
			}
		}
		p.ReadArgs[t] = o
	}
}

func bindConds(cs []condSpec, sub func(string) string) []condSpec {
	out := make([]condSpec, len(cs))
	for i, c := range cs {
		c.In, c.NotIn = bindList(c.In, sub), bindList(c.NotIn, sub)
		out[i] = c
	}
	return out
}

func bindList(l []string, sub func(string) string) []string {
	if l == nil {
		return nil
	}
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = sub(s)
	}
	return out
}

// Bind is p for one broker table: ${broker} becomes key and each of p.Vars the table's
// value; a var the table does not give, or gives empty, is an error naming it. A profile
// without placeholders is returned as it is.
func (p *Profile) Bind(key string, vars map[string]string) (*Profile, error) {
	for _, v := range p.Vars {
		if vars[v] == "" {
			return nil, fmt.Errorf("the %s profile needs profile_vars.%s", p.Name, v)
		}
	}
	for k := range vars {
		if !contains(p.Vars, k) {
			return nil, fmt.Errorf("profile_vars.%s: the %s profile takes no such variable (takes: %s)", k, p.Name, strings.Join(p.Vars, ", "))
		}
	}
	if p.spec == nil {
		return p, nil
	}
	sub := func(s string) string {
		return varRef.ReplaceAllStringFunc(s, func(m string) string {
			name := m[2 : len(m)-1]
			if name == "broker" {
				return key
			}
			return vars[name]
		})
	}
	b := *p
	b.bindData(p.spec.Extract, p.spec.Reads.Args, sub)
	return &b, nil
}

// HasExtractor reports whether tool is an order tool the profile reads an intent from.
func (p *Profile) HasExtractor(tool string) bool { return p != nil && p.OrderTools[tool] }

// buildSources are what a build argument can be taken from.
var buildSources = map[string]bool{"symbol": true, "side": true, "quantity": true, "notional": true,
	"type": true, "limit_price": true, "stop_price": true, "trail_amount": true, "trail_percent": true,
	"client_order_id": true, "instrument": true}

// build turns a typed order into the order tool's arguments, in the listed order. quantity
// and notional are one size: the quantity when there is one, else the notional; neither is
// an error. An unset price or client order id is left out. An order the table cannot send
// whole is refused (sends): it never goes out as another order.
func (b buildSpec) build(req OrderRequest) (string, *jsonv.Object, error) {
	if err := b.sends(req); err != nil {
		return "", nil, err
	}
	crypto := strings.Contains(req.Symbol, "/") && b.CryptoTool != ""
	tool := b.Tool
	if crypto {
		tool = b.CryptoTool
	}
	args := jsonv.NewObject()
	for _, a := range b.Args {
		if a.Value != "" {
			v := a.Value
			if crypto && a.CryptoValue != "" {
				v = a.CryptoValue
			}
			args.Set(a.Arg, v)
			continue
		}
		v, err := buildValue(req, a.From)
		if err != nil {
			return "", nil, err
		}
		if v != nil {
			args.Set(a.Arg, v)
		}
	}
	return tool, args, nil
}

// sends refuses an order the table would send as another one: a type other than market
// without a type argument, a price the order carries without an argument for it (a stop
// without its stop_price is a market order), or a stop whose prices do not fit its type.
func (b buildSpec) sends(req OrderRequest) error {
	sent := map[string]bool{}
	for _, a := range b.Args {
		if a.From != "" {
			sent[a.From] = true
		}
	}
	t := orderType(req)
	if t != Market && !sent["type"] {
		return fmt.Errorf("build: the profile's [build] sends no order type, so a %s order is refused (add an args entry with from = \"type\")", t)
	}
	if t.Triggered() {
		if err := CheckOrderPrices(t, req.Prices()); err != nil {
			return fmt.Errorf("build: %w", err)
		}
	}
	for _, f := range []struct {
		from string
		v    *money.Amount
	}{{"limit_price", req.LimitPrice}, {"stop_price", req.StopPrice}, {"trail_amount", req.TrailAmount}, {"trail_percent", req.TrailPercent}} {
		if f.v != nil && !sent[f.from] {
			return fmt.Errorf("build: the profile's [build] sends no %s, so a %s order is refused rather than sent without it (add an args entry with from = %q)", f.from, t, f.from)
		}
	}
	return nil
}

func buildValue(req OrderRequest, from string) (any, error) {
	amount := func(a *money.Amount) any {
		if a == nil {
			return nil
		}
		return a.String()
	}
	switch from {
	case "symbol":
		return req.Symbol, nil
	case "side":
		return req.Side, nil
	case "type":
		return string(orderType(req)), nil
	case "instrument":
		if req.Instrument == "" {
			return string(Equity), nil
		}
		return string(req.Instrument), nil
	case "quantity", "notional":
		if req.Quantity == nil && req.Notional == nil {
			return nil, errNoSize
		}
		if from == "quantity" {
			return amount(req.Quantity), nil
		}
		if req.Quantity != nil {
			return nil, nil
		}
		return amount(req.Notional), nil
	case "limit_price":
		return amount(req.LimitPrice), nil
	case "stop_price":
		return amount(req.StopPrice), nil
	case "trail_amount":
		return amount(req.TrailAmount), nil
	case "trail_percent":
		return amount(req.TrailPercent), nil
	case "client_order_id":
		if req.ClientOrderID == "" {
			return nil, nil
		}
		return req.ClientOrderID, nil
	}
	return nil, fmt.Errorf("build: unknown source %q", from)
}

// replyError reads a failure from an order or cancel tool's reply: the error member (a
// message, or an object whose timeout member makes it indeterminate), or a text reply
// (wrapped as {"raw": text}) that starts with one of the error prefixes.
func (o ordersSpec) replyError(reply *jsonv.Object) error {
	if raw, ok := reply.Value("raw").(string); ok && reply.Len() == 1 {
		t := pystr.Strip(raw)
		for _, p := range o.ErrorPrefixes {
			if strings.HasPrefix(t, p) {
				return Rejected(t)
			}
		}
	}
	if o.ErrorMember == "" {
		return nil
	}
	v, ok := reply.Get(o.ErrorMember)
	if !ok || v == nil || v == false {
		return nil
	}
	msg := "the broker returned an error"
	switch e := v.(type) {
	case string:
		msg = e
	case *jsonv.Object:
		msg = EnvelopeError(e, msg)
		if o.TimeoutMember != "" && jsonv.Truthy(e.Value(o.TimeoutMember)) {
			return Indeterminate(errString("the submit timed out and may have reached the broker: " + msg))
		}
	}
	return Rejected(msg)
}

// priceAt is the first positive number at one of paths (a.0.b: list items by index).
func priceAt(payload any, paths []string) (money.Amount, bool) {
	o, ok := payload.(*jsonv.Object)
	if !ok {
		return money.Zero, false
	}
	for _, p := range paths {
		if v, ok := argPath(o, p); ok {
			if a, err := DecimalFromJSON(v); err == nil && a.Sign() > 0 {
				return a, true
			}
		}
	}
	return money.Zero, false
}
