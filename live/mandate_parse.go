package live

import (
	"errors"
	"fmt"
	"strings"

	"cockpit/live/jsonv"
	"cockpit/live/money"
	"cockpit/live/pystr"
)

// ErrNoMandate reports that a broker has no committed mandate file.
var ErrNoMandate = errors.New("no mandate on file")

// MandateError is a rejected mandate document; it names the field and the offending value.
type MandateError struct {
	Field string // dotted path, e.g. "hard_caps.max_order_notional_usd"; "" for the document
	Value string // the value as found (Python repr for strings), "" when absent
	Msg   string
	// Strict marks a rejection Vibe-Trading would not make: cockpit refuses, on purpose,
	// values the reference coerces (DV1: numeric strings, NaN, booleans as numbers, strings as
	// lists, negative caps, unknown schema versions, …).
	Strict bool
}

func (e *MandateError) Error() string {
	var b strings.Builder
	b.WriteString("invalid mandate")
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	if e.Value != "" {
		b.WriteString(" = ")
		b.WriteString(e.Value)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// ParseMandate strictly validates a mandate document (DV1): every field of schema 1 must be
// present with the right JSON type; numbers must be finite JSON numbers; caps must not be
// negative; enum values must match exactly; unknown keys inside "controls" are refused.
// Unknown keys elsewhere are ignored, as in the reference, so newer files still load.
func ParseMandate(data []byte) (*Mandate, error) {
	// NaN and Infinity literals (which Python writes) are parsed so the error can name the
	// field that holds them; the validator then refuses them.
	doc, err := jsonv.Parse(data, jsonv.Options{RejectDuplicates: true, NonFinite: true})
	if err != nil {
		strict := errors.Is(err, jsonv.ErrDuplicateKey)
		return nil, &MandateError{Msg: "not a JSON document: " + err.Error(), Strict: strict}
	}
	return MandateFromJSON(doc)
}

// MandateFromJSON validates an already-parsed mandate document.
func MandateFromJSON(doc any) (*Mandate, error) {
	root, ok := doc.(*jsonv.Object)
	if !ok {
		return nil, &MandateError{Msg: "the document is " + jsonv.TypeName(doc) + ", want an object"}
	}
	v := validator{}
	m := &Mandate{}
	m.SchemaVersion = v.schemaVersion(root)
	if id, ok := root.Get("mandate_id"); ok {
		m.MandateID = v.optionalString("mandate_id", id)
	}
	if caps := v.object(root, "hard_caps"); caps != nil {
		m.HardCaps = v.hardCaps(caps)
	}
	if uni := v.object(root, "universe"); uni != nil {
		m.Universe = v.universe(uni)
	}
	if consent := v.object(root, "consent"); consent != nil {
		m.Consent = v.consent(consent)
	}
	if f, ok := root.Get("flatten_on_halt"); ok {
		m.FlattenOnHalt = v.flatten(f)
	}
	if c, ok := root.Get("controls"); ok {
		m.Controls, m.HasControls = v.controls(c)
	}
	if v.err != nil {
		return nil, v.err
	}
	return m, nil
}

// CapsFromJSON validates a bare {hard_caps, universe[, controls]} pair, as `cockpit check
// --batch` lines carry; consent and schema version are not required there.
func CapsFromJSON(doc *jsonv.Object) (*Mandate, error) {
	v := validator{}
	m := &Mandate{SchemaVersion: SchemaVersion}
	if caps := v.object(doc, "hard_caps"); caps != nil {
		m.HardCaps = v.hardCaps(caps)
	}
	if uni := v.object(doc, "universe"); uni != nil {
		m.Universe = v.universe(uni)
	}
	if c, ok := doc.Get("controls"); ok {
		m.Controls, m.HasControls = v.controls(c)
	}
	if f, ok := doc.Get("flatten_on_halt"); ok {
		m.FlattenOnHalt = v.flatten(f)
	}
	if v.err != nil {
		return nil, v.err
	}
	return m, nil
}

// validator collects the first error; later checks become no-ops.
type validator struct{ err error }

func (v *validator) fail(field string, value any, strict bool, format string, args ...any) {
	if v.err != nil {
		return
	}
	v.err = &MandateError{Field: field, Value: DescribeValue(value), Msg: fmt.Sprintf(format, args...), Strict: strict}
}

func (v *validator) missing(field string) {
	if v.err == nil {
		v.err = &MandateError{Field: field, Msg: "required field is missing"}
	}
}

// DescribeValue renders a JSON value for an error message.
func DescribeValue(value any) string {
	switch t := value.(type) {
	case nil:
		return "null"
	case string:
		return pystr.Repr(t)
	case jsonv.Number:
		return string(t)
	case jsonv.Float:
		f, _ := jsonv.ToFloat(t)
		return fmt.Sprint(f)
	case bool:
		return fmt.Sprint(t)
	}
	s, err := jsonv.MarshalString(value, jsonv.Python)
	if err != nil || len(s) > 80 {
		return jsonv.TypeName(value)
	}
	return s
}

func (v *validator) object(parent *jsonv.Object, key string) *jsonv.Object {
	raw, ok := parent.Get(key)
	if !ok {
		v.missing(key)
		return nil
	}
	o, ok := raw.(*jsonv.Object)
	if !ok {
		v.fail(key, raw, false, "is %s, want an object", jsonv.TypeName(raw))
		return nil
	}
	return o
}

func (v *validator) schemaVersion(root *jsonv.Object) int {
	raw, ok := root.Get("schema_version")
	if !ok {
		v.missing("schema_version")
		return 0
	}
	n, ok := v.integer("schema_version", raw)
	if !ok {
		return 0
	}
	if n != SchemaVersion {
		v.fail("schema_version", raw, true, "unsupported schema version (cockpit understands %d)", SchemaVersion)
		return 0
	}
	return int(n)
}

// number reads a finite JSON number; strings, booleans and non-finite values are refused.
func (v *validator) number(field string, raw any) (money.Amount, bool) {
	switch t := raw.(type) {
	case jsonv.Number:
		a, err := money.Parse(string(t))
		if err != nil {
			v.fail(field, raw, true, "number out of the accepted range (|x| ≤ 1e%d, at most %d digits)", money.MaxMagnitude, money.MaxDigits)
			return money.Zero, false
		}
		return a, true
	case jsonv.Float:
		v.fail(field, raw, true, "non-finite numbers are not allowed")
	case string:
		v.fail(field, raw, true, "is a string, want a JSON number")
	case bool:
		v.fail(field, raw, true, "is a boolean, want a JSON number")
	case nil:
		v.fail(field, raw, false, "is null, want a number")
	default:
		v.fail(field, raw, false, "is %s, want a number", jsonv.TypeName(raw))
	}
	return money.Zero, false
}

// cap reads a non-negative finite number.
func (v *validator) cap(field string, raw any) money.Amount {
	a, ok := v.number(field, raw)
	if ok && a.Sign() < 0 {
		v.fail(field, raw, true, "a cap cannot be negative")
	}
	return a
}

// integer reads a JSON number with no fractional part.
func (v *validator) integer(field string, raw any) (int64, bool) {
	a, ok := v.number(field, raw)
	if !ok {
		return 0, false
	}
	if !a.IsInteger() {
		v.fail(field, raw, true, "must be a whole number")
		return 0, false
	}
	return a.Int64(), true
}

// requiredField is obj[key]; field is its dotted path for errors ("parent.key", spelled out
// by the callers so that no path is built per field).
func (v *validator) requiredField(obj *jsonv.Object, field, key string) (any, string, bool) {
	raw, ok := obj.Get(key)
	if !ok {
		v.missing(field)
	}
	return raw, field, ok
}

func (v *validator) hardCaps(caps *jsonv.Object) HardCaps {
	var h HardCaps
	amounts := [...]struct {
		field, key string
		dst        *money.Amount
	}{
		{"hard_caps.account_funding_usd", "account_funding_usd", &h.AccountFundingUSD},
		{"hard_caps.max_order_notional_usd", "max_order_notional_usd", &h.MaxOrderNotionalUSD},
		{"hard_caps.max_total_exposure_usd", "max_total_exposure_usd", &h.MaxTotalExposureUSD},
		{"hard_caps.max_leverage", "max_leverage", &h.MaxLeverage},
	}
	for _, a := range amounts {
		if raw, field, ok := v.requiredField(caps, a.field, a.key); ok {
			*a.dst = v.cap(field, raw)
		}
	}
	if raw, field, ok := v.requiredField(caps, "hard_caps.allowed_instruments", "allowed_instruments"); ok {
		for i, s := range v.stringList(field, raw) {
			t := canonical(InstrumentType(s), InstrumentTypes)
			if !t.Valid() {
				v.fail(fmt.Sprintf("%s[%d]", field, i), s, false, "unknown instrument type (want one of %s)", joinEnum(InstrumentTypes))
			}
			h.AllowedInstruments = append(h.AllowedInstruments, t)
		}
	}
	if raw, field, ok := v.requiredField(caps, "hard_caps.max_trades_per_day", "max_trades_per_day"); ok {
		if n, ok := v.integer(field, raw); ok {
			if n < 0 {
				v.fail(field, raw, true, "a cap cannot be negative")
			}
			if n > 1_000_000 {
				v.fail(field, raw, true, "unreasonably large (at most 1000000)")
			}
			h.MaxTradesPerDay = int(n)
		}
	}
	return h
}

func (v *validator) universe(uni *jsonv.Object) Universe {
	var u Universe
	if raw, field, ok := v.requiredField(uni, "universe.asset_classes", "asset_classes"); ok {
		for i, s := range v.stringList(field, raw) {
			c := canonical(AssetClass(s), AssetClasses)
			if !c.Valid() {
				v.fail(fmt.Sprintf("%s[%d]", field, i), s, false, "unknown asset class (want one of %s)", joinEnum(AssetClasses))
			}
			u.AssetClasses = append(u.AssetClasses, c)
		}
	}
	for _, f := range [...]struct {
		field, key string
		dst        **money.Amount
	}{
		{"universe.min_market_cap_usd", "min_market_cap_usd", &u.MinMarketCapUSD},
		{"universe.min_avg_daily_volume_usd", "min_avg_daily_volume_usd", &u.MinAvgDailyVolumeUSD},
	} {
		raw, field, ok := v.requiredField(uni, f.field, f.key)
		if !ok || raw == nil {
			continue
		}
		a := v.cap(field, raw)
		*f.dst = &a
	}
	if raw, field, ok := v.requiredField(uni, "universe.exclude_symbols", "exclude_symbols"); ok {
		u.ExcludeSymbols = v.stringList(field, raw)
	}
	return u
}

// stringList reads a JSON list of strings; a bare string is refused (the reference iterates
// it character by character).
func (v *validator) stringList(field string, raw any) []string {
	list, ok := raw.([]any)
	if !ok {
		_, isString := raw.(string)
		v.fail(field, raw, isString, "is %s, want a list of strings", jsonv.TypeName(raw))
		return nil
	}
	out := make([]string, 0, len(list))
	for i, item := range list {
		s, ok := item.(string)
		if !ok {
			v.fail(fmt.Sprintf("%s[%d]", field, i), item, true, "is %s, want a string", jsonv.TypeName(item))
			continue
		}
		out = append(out, s)
	}
	return out
}

func (v *validator) consent(c *jsonv.Object) Consent {
	var out Consent
	for _, f := range [...]struct {
		field, key string
		dst        *string
	}{
		{"consent.created_at", "created_at", &out.CreatedAt},
		{"consent.consent_token_sha256", "consent_token_sha256", &out.ConsentTokenSHA256},
		{"consent.broker", "broker", &out.Broker},
		{"consent.account_ref", "account_ref", &out.AccountRef},
		{"consent.expires_at", "expires_at", &out.ExpiresAt},
	} {
		raw, field, ok := v.requiredField(c, f.field, f.key)
		if !ok {
			continue
		}
		s, isString := raw.(string)
		if !isString {
			// The reference stringifies these (12345 → "12345"); a mandate whose provenance is
			// not text was not written by a commit, so refuse it.
			v.fail(field, raw, true, "is %s, want a string", jsonv.TypeName(raw))
			continue
		}
		*f.dst = s
	}
	return out
}

func (v *validator) optionalString(field string, raw any) string {
	s, ok := raw.(string)
	if !ok && raw != nil {
		v.fail(field, raw, true, "is %s, want a string", jsonv.TypeName(raw))
	}
	return s
}

// flatten reads flatten_on_halt: a boolean, or null for "not set" (false). The reference
// truth-tests it, so the string "false" would turn flattening on (L4).
func (v *validator) flatten(raw any) bool {
	switch t := raw.(type) {
	case bool:
		return t
	case nil:
		return false
	}
	v.fail("flatten_on_halt", raw, true, "is %s, want true or false", jsonv.TypeName(raw))
	return false
}

func (v *validator) controls(raw any) (Controls, bool) {
	var c Controls
	if raw == nil {
		return c, false
	}
	obj, ok := raw.(*jsonv.Object)
	if !ok {
		v.fail("controls", raw, false, "is %s, want an object", jsonv.TypeName(raw))
		return c, false
	}
	for _, m := range obj.Members() {
		field := "controls." + m.Key
		if m.Value == nil {
			continue // explicitly off
		}
		switch m.Key {
		case "max_order_quantity":
			if a := v.cap(field, m.Value); v.err == nil {
				if a.Sign() == 0 {
					v.fail(field, m.Value, false, "must be positive (omit it or use null to turn the control off)")
				}
				c.MaxOrderQuantity = &a
			}
		case "price_collar_bps":
			if a := v.cap(field, m.Value); v.err == nil {
				c.PriceCollarBps = &a
			}
		case "max_quote_age_ms":
			c.MaxQuoteAgeMs = v.nonNegativeInt(field, m.Value)
		case "duplicate_window_ms":
			c.DuplicateWindowMs = v.nonNegativeInt(field, m.Value)
		case "max_orders_per_minute":
			c.MaxOrdersPerMinute = v.nonNegativeInt(field, m.Value)
		case "approval_timeout_s":
			if p := v.nonNegativeInt(field, m.Value); p != nil {
				if *p == 0 {
					v.fail(field, m.Value, false, "must be at least 1 second")
				}
				c.ApprovalTimeoutS = p
			}
		case "max_daily_loss_usd":
			c.MaxDailyLossUSD = v.positive(field, m.Value, nil)
		case "max_drawdown_pct":
			c.MaxDrawdownPct = v.positive(field, m.Value, &hundred)
		default:
			v.fail(field, m.Value, false, "unknown control (known: %s)", strings.Join(mandateKeys["controls"], ", "))
		}
	}
	return c, true
}

var hundred = money.FromInt(100)

// positive reads a loss limit: a finite JSON number above zero and, when most is set, at
// most that. Zero is refused: a limit of zero would halt on the first cent of loss; null or
// omitting the key turns the control off.
func (v *validator) positive(field string, raw any, most *money.Amount) *money.Amount {
	a := v.cap(field, raw)
	if v.err != nil {
		return nil
	}
	switch {
	case a.Sign() == 0:
		v.fail(field, raw, true, "must be positive (omit it or use null to turn the control off)")
		return nil
	case most != nil && a.GreaterThan(*most):
		v.fail(field, raw, true, "must be at most %s (a percentage)", most)
		return nil
	}
	return &a
}

func (v *validator) nonNegativeInt(field string, raw any) *int64 {
	n, ok := v.integer(field, raw)
	if !ok {
		return nil
	}
	if n < 0 {
		v.fail(field, raw, false, "cannot be negative")
		return nil
	}
	return &n
}

func joinEnum[T ~string](values []T) string {
	parts := make([]string, len(values))
	for i, s := range values {
		parts[i] = string(s)
	}
	return strings.Join(parts, ", ")
}
