package live

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"cockpit/live/money"
)

// ProfileSpec is a broker profile as written in a TOML file (docs/broker-profiles.md): the
// tool map, the reads, the order and cancel tools, an extractor per order tool and,
// optionally, how cockpit's own typed orders are built. ParseProfile checks it and turns it
// into a Profile.
type ProfileSpec struct {
	Name  string `toml:"name"`
	About string `toml:"about"`
	// Authoritative: Tools lists every tool the profile knows; any other tool is UNKNOWN.
	Authoritative bool                   `toml:"authoritative"`
	Vars          []string               `toml:"vars"` // names a broker table gives in profile_vars
	Tools         map[string]string      `toml:"tools"`
	Reads         readsSpec              `toml:"reads"`
	Orders        ordersSpec             `toml:"orders"`
	Build         *buildSpec             `toml:"build"`
	Extract       map[string]extractSpec `toml:"extract"`
}

type readsSpec struct {
	Quote          string                    `toml:"quote"`
	QuoteCrypto    string                    `toml:"quote_crypto"`
	QuoteOption    string                    `toml:"quote_option"`
	QuoteParser    string                    `toml:"quote_parser"` // mcp (default) | alpaca
	Positions      string                    `toml:"positions"`
	Account        string                    `toml:"account"`
	Orders         string                    `toml:"orders"`
	Order          string                    `toml:"order"`        // one order by id: how a fill of an order that left the open list is seen
	OrderIDArg     string                    `toml:"order_id_arg"` // its id argument ("" = order_id)
	Bars           string                    `toml:"bars"`
	QuotePrice     []string                  `toml:"quote_price"`     // paths of the price in the quote reply
	Args           map[string]map[string]any `toml:"args"`            // tool → fixed arguments
	PositionFields map[string]string         `toml:"position_fields"` // cockpit's name → payload key
}

type ordersSpec struct {
	Place         string   `toml:"place"`
	Cancel        string   `toml:"cancel"`
	CancelIDArg   string   `toml:"cancel_id_arg"`
	ErrorMember   string   `toml:"error_member"`
	TimeoutMember string   `toml:"timeout_member"`
	ErrorPrefixes []string `toml:"error_prefixes"`
}

type buildSpec struct {
	Tool       string         `toml:"tool"`
	CryptoTool string         `toml:"crypto_tool"`
	Args       []buildArgSpec `toml:"args"`
}

type buildArgSpec struct {
	Arg         string `toml:"arg"`
	From        string `toml:"from"`
	Value       string `toml:"value"`
	CryptoValue string `toml:"crypto_value"`
}

type extractSpec struct {
	Instrument   *fieldSpec `toml:"instrument"`
	Symbol       *fieldSpec `toml:"symbol"`
	Side         *fieldSpec `toml:"side"`
	Type         *fieldSpec `toml:"type"`
	Quantity     *fieldSpec `toml:"quantity"`
	Notional     *fieldSpec `toml:"notional"`
	LimitPrice   *fieldSpec `toml:"limit_price"`
	StopPrice    *fieldSpec `toml:"stop_price"`
	TrailAmount  *fieldSpec `toml:"trail_amount"`
	TrailPercent *fieldSpec `toml:"trail_percent"`
	Legs         string     `toml:"legs"` // path of a legs list (symbol, side, ratio_qty, position_intent)
	// Size: at_least_one (default), exactly_one, quantity (a quantity and no notional).
	Size               string     `toml:"size"`
	QuantityMultiplier string     `toml:"quantity_multiplier"`
	LimitNotional      bool       `toml:"limit_notional"` // a limit order's notional is quantity × limit
	Reject             []condSpec `toml:"reject"`
}

// fieldSpec says where one intent field is in a tool's arguments.
type fieldSpec struct {
	From       []string          `toml:"from"`  // JSON paths (a.b), tried in order
	Value      string            `toml:"value"` // a constant instead of a path
	Pick       string            `toml:"pick"`  // first_present (default) | first_usable
	NullAbsent bool              `toml:"null_absent"`
	Invalid    string            `toml:"invalid"` // reject (default) | absent
	Transforms []string          `toml:"transforms"`
	Map        map[string]string `toml:"map"` // after transforms; "" is the value when no path gives one
}

// condSpec refuses an order (no intent) when its path matches.
type condSpec struct {
	Path       string   `toml:"path"`
	Has        bool     `toml:"has"`    // the key exists (null included)
	Set        bool     `toml:"set"`    // the key holds a value other than null
	In         []string `toml:"in"`     // the string value (transformed; "" when not a string) is one of
	NotIn      []string `toml:"not_in"` // … is none of
	Transforms []string `toml:"transforms"`
}

// profileName is a profile's name: lower case letters, digits, - and _.
var profileName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// ParseProfile reads a profile file's bytes strictly: an unknown key, an unknown transform or
// class, a read or order tool the map does not name, or a WRITE tool's extractor for a tool
// the map does not name WRITE is an error that names the key. A WRITE tool without an
// extractor is allowed: the gate denies it.
func ParseProfile(data []byte) (*Profile, error) {
	var s ProfileSpec
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&s)
	if err != nil {
		return nil, fmt.Errorf("profile: %v", err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return nil, fmt.Errorf("profile: unknown key %s (a typo? see docs/broker-profiles.md)", strings.Join(keys, ", "))
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("profile %q: %w", s.Name, err)
	}
	return s.profile(), nil
}

// check validates the spec; errors name the key.
func (s *ProfileSpec) check() error {
	if !profileName.MatchString(s.Name) {
		return fmt.Errorf("name = %q: want lower-case letters, digits, - or _", s.Name)
	}
	for _, v := range s.Vars {
		if !varName.MatchString(v) || v == "broker" {
			return fmt.Errorf("vars: %q is not a variable name (letters, digits, _; not broker)", v)
		}
	}
	for _, t := range sortedKeys(s.Tools) {
		if !toolName.MatchString(t) {
			return fmt.Errorf("tools.%s: not a tool name", t)
		}
		if c := s.Tools[t]; c != string(ClassRead) && c != string(ClassWrite) {
			return fmt.Errorf("tools.%s = %q: want read or write", t, c)
		}
	}
	if err := s.checkRefs(); err != nil {
		return err
	}
	if err := s.checkPlaceholders(); err != nil {
		return err
	}
	for _, t := range sortedKeys(s.Extract) {
		if s.Tools[t] != string(ClassWrite) {
			return fmt.Errorf("extract.%s: the tool is not WRITE in [tools]; an order tool must be", t)
		}
		e := s.Extract[t]
		if err := e.check(); err != nil {
			return fmt.Errorf("extract.%s.%w", t, err)
		}
	}
	if s.Build != nil {
		if err := s.Build.check(s.Extract); err != nil {
			return fmt.Errorf("build.%w", err)
		}
	}
	return nil
}

// checkRefs makes sure the tools the reads and orders name have the right class.
func (s *ProfileSpec) checkRefs() error {
	r, o := s.Reads, s.Orders
	for _, ref := range []struct{ key, tool, class string }{
		{"reads.quote", r.Quote, "read"}, {"reads.quote_crypto", r.QuoteCrypto, "read"},
		{"reads.quote_option", r.QuoteOption, "read"}, {"reads.positions", r.Positions, "read"},
		{"reads.account", r.Account, "read"}, {"reads.orders", r.Orders, "read"}, {"reads.order", r.Order, "read"}, {"reads.bars", r.Bars, "read"},
		{"orders.place", o.Place, "write"}, {"orders.cancel", o.Cancel, "write"},
	} {
		if ref.tool != "" && s.Tools[ref.tool] != ref.class {
			return fmt.Errorf("%s = %q: want a tool [tools] names %s", ref.key, ref.tool, ref.class)
		}
	}
	if o.Place != "" {
		if _, ok := s.Extract[o.Place]; !ok {
			return fmt.Errorf("orders.place = %q: the order tool has no [extract.%s]", o.Place, o.Place)
		}
	}
	switch r.QuoteParser {
	case "", "mcp", "alpaca":
	default:
		return fmt.Errorf("reads.quote_parser = %q: want mcp or alpaca", r.QuoteParser)
	}
	for _, t := range sortedKeys(r.Args) {
		if s.Tools[t] != string(ClassRead) {
			return fmt.Errorf("reads.args.%s: want a tool [tools] names read", t)
		}
		for _, a := range sortedKeys(r.Args[t]) {
			switch r.Args[t][a].(type) {
			case string, bool, int64:
			default:
				return fmt.Errorf("reads.args.%s.%s: want a string, a boolean or an integer", t, a)
			}
		}
	}
	if len(r.QuotePrice) > 0 && r.QuoteParser != "" {
		return fmt.Errorf("reads.quote_price: give quote_price or quote_parser, not both")
	}
	for _, k := range sortedKeys(r.PositionFields) {
		switch k {
		case "symbol", "quantity", "market_value", "price":
		default:
			return fmt.Errorf("reads.position_fields.%s: want symbol, quantity, market_value or price", k)
		}
	}
	return nil
}

// varRef is a ${name} placeholder in a read argument or a reject value.
var (
	varRef  = regexp.MustCompile(`\$\{([^}]*)\}`)
	varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
)

// checkPlaceholders: every ${name} is ${broker} or one of vars.
func (s *ProfileSpec) checkPlaceholders() error {
	known := map[string]bool{"broker": true}
	for _, v := range s.Vars {
		known[v] = true
	}
	check := func(key, text string) error {
		for _, m := range varRef.FindAllStringSubmatch(text, -1) {
			if !known[m[1]] {
				return fmt.Errorf("%s: ${%s} is neither ${broker} nor listed in vars", key, m[1])
			}
		}
		return nil
	}
	for _, t := range sortedKeys(s.Reads.Args) {
		for _, a := range sortedKeys(s.Reads.Args[t]) {
			text, _ := s.Reads.Args[t][a].(string)
			if err := check("reads.args."+t+"."+a, text); err != nil {
				return err
			}
		}
	}
	for _, t := range sortedKeys(s.Extract) {
		for i, c := range s.Extract[t].Reject {
			for _, v := range append(append([]string{}, c.In...), c.NotIn...) {
				if err := check(fmt.Sprintf("extract.%s.reject[%d]", t, i), v); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (e extractSpec) check() error {
	if e.Instrument == nil || e.Side == nil || e.Symbol == nil {
		if e.Legs == "" || e.Instrument == nil {
			return fmt.Errorf("instrument, symbol and side: an extractor needs all three (symbol and side may come from legs)")
		}
	}
	for _, f := range []struct {
		key    string
		spec   *fieldSpec
		amount bool
		values func(string) bool
	}{
		{"instrument", e.Instrument, false, func(v string) bool { return InstrumentType(v).Valid() }},
		{"symbol", e.Symbol, false, nil},
		{"side", e.Side, false, func(v string) bool { return v == Buy || v == Sell }},
		{"type", e.Type, false, validOrderType},
		{"quantity", e.Quantity, true, nil}, {"notional", e.Notional, true, nil},
		{"limit_price", e.LimitPrice, true, nil}, {"stop_price", e.StopPrice, true, nil},
		{"trail_amount", e.TrailAmount, true, nil}, {"trail_percent", e.TrailPercent, true, nil},
	} {
		if f.spec == nil {
			continue
		}
		if err := f.spec.check(f.amount, f.values); err != nil {
			return fmt.Errorf("%s: %w", f.key, err)
		}
	}
	switch e.Size {
	case "", "at_least_one", "exactly_one", "quantity":
	default:
		return fmt.Errorf("size = %q: want at_least_one, exactly_one or quantity", e.Size)
	}
	if e.Quantity == nil && e.Notional == nil {
		return fmt.Errorf("quantity, notional: an extractor needs at least one size")
	}
	if e.QuantityMultiplier != "" {
		if m, err := money.Parse(e.QuantityMultiplier); err != nil || m.Sign() <= 0 {
			return fmt.Errorf("quantity_multiplier = %q: want a positive decimal", e.QuantityMultiplier)
		}
	}
	for i, c := range e.Reject {
		if c.Path == "" || !c.Has && !c.Set && c.In == nil && c.NotIn == nil {
			return fmt.Errorf("reject[%d]: want a path and one of has, set, in, not_in", i)
		}
		if err := checkTransforms(c.Transforms, false); err != nil {
			return fmt.Errorf("reject[%d]: %w", i, err)
		}
	}
	return nil
}

func validOrderType(v string) bool {
	switch OrderType(v) {
	case Market, Limit, Stop, StopLimit, TrailingStop:
		return true
	}
	return false
}

func (f *fieldSpec) check(amount bool, valid func(string) bool) error {
	if (f.Value == "") == (len(f.From) == 0) {
		return fmt.Errorf("want exactly one of from and value")
	}
	if f.Value != "" && (amount || valid != nil && !valid(f.Value)) {
		return fmt.Errorf("value = %q: not a value this field takes", f.Value)
	}
	switch f.Pick {
	case "", "first_present", "first_usable":
	default:
		return fmt.Errorf("pick = %q: want first_present or first_usable", f.Pick)
	}
	switch f.Invalid {
	case "", "reject", "absent":
	default:
		return fmt.Errorf("invalid = %q: want reject or absent", f.Invalid)
	}
	if err := checkTransforms(f.Transforms, amount); err != nil {
		return err
	}
	if f.Map != nil && amount {
		return fmt.Errorf("map: an amount is not mapped")
	}
	for _, k := range sortedKeys(f.Map) {
		if valid != nil && !valid(f.Map[k]) {
			return fmt.Errorf("map.%s = %q: not a value this field takes", k, f.Map[k])
		}
	}
	return nil
}

func checkTransforms(names []string, amount bool) error {
	for _, t := range names {
		_, isString := stringTransforms[t]
		_, isAmount := amountTransforms[t]
		switch {
		case !isString && !isAmount:
			return fmt.Errorf("transform %q: want one of %s", t, transformNames())
		case amount && !isAmount, !amount && !isString:
			return fmt.Errorf("transform %q does not apply to this field", t)
		}
	}
	return nil
}

func (b *buildSpec) check(extract map[string]extractSpec) error {
	for k, t := range map[string]string{"tool": b.Tool, "crypto_tool": b.CryptoTool} {
		if _, ok := extract[t]; t != "" && !ok {
			return fmt.Errorf("%s = %q: want an order tool with an [extract] table", k, t)
		}
	}
	if b.Tool == "" {
		return fmt.Errorf("tool: want the order tool typed orders are sent to")
	}
	for i, a := range b.Args {
		if a.Arg == "" || (a.From == "") == (a.Value == "") {
			return fmt.Errorf("args[%d]: want arg and exactly one of from and value", i)
		}
		if a.From != "" && !buildSources[a.From] {
			return fmt.Errorf("args[%d].from = %q: want one of %s", i, a.From, strings.Join(sortedKeys(buildSources), ", "))
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
