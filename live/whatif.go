package live

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"cockpit/live/jsonv"
	"cockpit/live/money"
)

// KindInvalidMandate is the verdict kind of a what-if whose mandate fails validation.
const KindInvalidMandate BreachKind = "invalid_mandate"

// WhatIf is one order to evaluate against a mandate without touching a broker: the shape of a
// `cockpit check --batch` line (and of the reference's check_mandate vectors). Non-finite
// numbers may appear as {"$float": "nan"|"inf"|"-inf"}.
type WhatIf struct {
	ID           string
	Mandate      *jsonv.Object // {hard_caps, universe[, controls]}
	Intent       *jsonv.Object
	Positions    any // the broker's raw positions payload
	DailyCount   any // JSON integer
	UniverseData any // {market_cap_usd, adv_usd}: number, null (unavailable) or "raise" (provider down)
	// Equity is the account's equity for the mandate's loss limits: {"current", "day_start",
	// "day_peak"} (day_start defaults to current, day_peak to the larger of the two). Absent
	// while a loss limit is set, an order that adds exposure is denied (fail-closed).
	Equity any
}

// WhatIfFromJSON reads a batch line.
// Only the fields it reads are decoded ({"$float": …} → Float): the line itself is the
// what-if, never a number, and the fields it ignores (a vector's "expected", …) cost nothing.
func WhatIfFromJSON(o *jsonv.Object) (WhatIf, error) {
	return WhatIfFromMembers(func(key string) (any, bool) { return field(o, key) })
}

// WhatIfFromMembers is WhatIfFromJSON over a line's members picked out by get: the member's
// value with its {"$float": …} objects decoded (DecodeFloatsShared) and whether it is there.
func WhatIfFromMembers(get func(key string) (any, bool)) (WhatIf, error) {
	w := WhatIf{}
	if id, ok := get("id"); ok {
		s, isString := id.(string)
		if !isString {
			return w, fmt.Errorf("id is %s, want a string", jsonv.TypeName(id))
		}
		w.ID = s
	}
	var ok bool
	if w.Mandate, ok = objectMember(get, "mandate"); !ok {
		return w, errors.New(`"mandate" must be an object with hard_caps and universe`)
	}
	if w.Intent, ok = objectMember(get, "intent"); !ok {
		return w, errors.New(`"intent" must be an object`)
	}
	if w.Positions, ok = get("positions"); !ok {
		w.Positions = []any{}
	}
	w.DailyCount, _ = get("daily_count")
	w.UniverseData, _ = get("universe_data")
	w.Equity, _ = get("equity")
	return w, nil
}

func objectMember(get func(string) (any, bool), key string) (*jsonv.Object, bool) {
	v, _ := get(key)
	obj, ok := v.(*jsonv.Object)
	return obj, ok
}

// field is o[key] with its {"$float": …} objects decoded.
func field(o *jsonv.Object, key string) (any, bool) {
	v, ok := o.Get(key)
	return decodeFloatsShared(v), ok
}

// WhatIfResult is the verdict of one what-if.
type WhatIfResult struct {
	ID      string
	Verdict Verdict
	Breach  *Breach // nil for ALLOW; Kind may be KindInvalidMandate
	Floors  []FloorCall
	Loss    *LossLimits // the mandate's loss limits at the what-if's equity; nil when none is set
}

// EvaluateWhatIf validates the mandate with the loader's strict rules and runs CheckMandate.
func EvaluateWhatIf(ctx context.Context, w WhatIf) WhatIfResult {
	m, err := CapsFromJSON(w.Mandate)
	return EvaluateWhatIfCaps(ctx, w, m, err)
}

// EvaluateWhatIfCaps is EvaluateWhatIf with the mandate already validated: m and err are what
// CapsFromJSON(w.Mandate) returned (a batch reuses them for a repeated mandate; m is only read).
func EvaluateWhatIfCaps(ctx context.Context, w WhatIf, m *Mandate, err error) WhatIfResult {
	if err != nil {
		field := ""
		var me *MandateError
		if errors.As(err, &me) {
			field = me.Field
		}
		return WhatIfResult{ID: w.ID, Verdict: Deny, Breach: &Breach{Kind: KindInvalidMandate, Limit: field, Detail: err.Error()}}
	}
	return EvaluateWhatIfRead(ctx, w, m, IntentFromJSON(w.Intent), ParsePositions(w.Positions))
}

// EvaluateWhatIfRead is EvaluateWhatIfCaps for a mandate m that validated, with the intent and
// the book already read: in is IntentFromJSON(w.Intent) and book ParsePositions(w.Positions)
// (a batch reuses the book of a repeated positions text; m and book are only read).
func EvaluateWhatIfRead(ctx context.Context, w WhatIf, m *Mandate, in OrderIntent, book Book) WhatIfResult {
	res := WhatIfResult{ID: w.ID}
	count, countErr := dailyCountFromJSON(w.DailyCount)
	floors := &StaticFloors{Data: w.UniverseData}
	req := CheckRequest{
		Mandate:    m,
		Intent:     in,
		Book:       book,
		DailyCount: count,
		Floors:     floors,
	}
	if m.Controls.HasLossLimits() { // the gate's loss step comes before the mandate's limits
		l := lossFromJSON(m.Controls, w.Equity)
		res.Loss = &l
		increases := req.Book.Err != nil || !ReducesPosition(req.Book, req.Intent)
		if b := l.Breach(increases); b != nil {
			res.Verdict, res.Breach = Deny, b
			return res
		}
	}
	b := CheckMandate(ctx, req)
	if b == nil && countErr != nil {
		b = &Breach{Kind: KindData, Limit: LimitTradesPerDay, LimitValue: money.FromInt(int64(m.HardCaps.MaxTradesPerDay)),
			Detail: "today's order count could not be read (fail-closed)", Cause: countErr.Error()}
	}
	res.Breach, res.Floors = b, floors.Calls
	res.Verdict = Allow
	if b != nil {
		res.Verdict = b.Verdict()
	}
	return res
}

// lossFromJSON reads a what-if's equity object for c's loss limits; an absent or unusable
// one gives limits whose Err says why.
func lossFromJSON(c Controls, v any) LossLimits {
	o, ok := v.(*jsonv.Object)
	if !ok {
		return LossUnknown(c, time.Time{}, fmt.Errorf("equity is %s, want {\"current\", \"day_start\", \"day_peak\"}", jsonv.TypeName(v)))
	}
	read := func(key string, def *money.Amount) (money.Amount, error) {
		raw, present := o.Get(key)
		if (!present || raw == nil) && def != nil {
			return *def, nil
		}
		a, err := DecimalFromJSON(raw)
		if err == nil && a.Sign() <= 0 {
			err = ErrNoEquity
		}
		if err != nil {
			return money.Zero, fmt.Errorf("equity.%s %s: %w", key, DescribeValue(raw), err)
		}
		return a, nil
	}
	cur, err := read("current", nil)
	if err != nil {
		return LossUnknown(c, time.Time{}, err)
	}
	start, err := read("day_start", &cur)
	if err != nil {
		return LossUnknown(c, time.Time{}, err)
	}
	top := money.Max(start, cur)
	peak, err := read("day_peak", &top)
	if err != nil {
		return LossUnknown(c, time.Time{}, err)
	}
	return EvaluateLoss(c, EquityMark{Start: start, Peak: money.Max(peak, top)}, cur, time.Time{})
}

func dailyCountFromJSON(v any) (int, error) {
	if v == nil {
		return 0, nil
	}
	if n, ok := smallInt(v); ok { // what the decimal path below gives such a number
		return n, nil
	}
	a, err := DecimalFromJSON(v)
	if err != nil {
		return 0, fmt.Errorf("daily_count: %w", err)
	}
	if _, isString := v.(string); isString || !a.IsInteger() {
		return 0, fmt.Errorf("daily_count %s is not an integer", DescribeValue(v))
	}
	n := a.Int64()
	if n > math.MaxInt32 || n < math.MinInt32 {
		return 0, fmt.Errorf("daily_count %s is out of range", DescribeValue(v))
	}
	return int(n), nil
}

// smallInt is a JSON number written as at most 9 digits (after an optional '-'): an integer
// well inside int32, which DecimalFromJSON reads exactly.
func smallInt(v any) (int, bool) {
	t, ok := v.(jsonv.Number)
	digits := strings.TrimPrefix(string(t), "-")
	if !ok || len(digits) == 0 || len(digits) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = 10*n + int(c-'0')
	}
	if len(digits) < len(t) {
		n = -n
	}
	return n, true
}

// JSON renders the verdict line of `cockpit check`: id, verdict, kind, limit, limit_value,
// attempted_value, overage, detail (and cause when cockpit adds an explanation).
func (r WhatIfResult) JSON() *jsonv.Object {
	o := jsonv.ObjectOf("id", r.ID, "verdict", string(r.Verdict))
	if r.Breach == nil {
		for _, k := range []string{"kind", "limit", "limit_value", "attempted_value", "overage", "detail"} {
			o.Set(k, nil)
		}
		r.setLoss(o)
		return o
	}
	b := r.Breach
	o.Set("kind", string(b.Kind))
	if b.Limit == "" { // a gate denial (halted, no_mandate, …), not a limit breach
		for _, k := range []string{"limit", "limit_value", "attempted_value", "overage"} {
			o.Set(k, nil)
		}
	} else {
		o.Set("limit", b.Limit)
		o.Set("limit_value", EncodeAmount(b.LimitValue))
		o.Set("attempted_value", EncodeAmount(b.Attempted))
		o.Set("overage", EncodeAmount(b.Overage()))
	}
	o.Set("detail", b.Detail)
	if b.Cause != "" {
		o.Set("cause", b.Cause)
	}
	r.setLoss(o)
	return o
}

// setLoss adds the loss limits, when the mandate sets any.
func (r WhatIfResult) setLoss(o *jsonv.Object) {
	if r.Loss != nil {
		o.Set("loss_limits", r.Loss.JSON())
	}
}

// EncodeAmount renders an amount as a JSON number, or {"$float": "inf"|"-inf"} when unbounded.
func EncodeAmount(a money.Amount) any {
	if a.IsInf() {
		if a.Sign() > 0 {
			return jsonv.ObjectOf("$float", "inf")
		}
		return jsonv.ObjectOf("$float", "-inf")
	}
	return jsonv.Number(a.String())
}

// DecodeFloats returns a copy of v in which every {"$float": "nan"|"inf"|"-inf"} object has
// become a jsonv.Float.
func DecodeFloats(v any) any {
	switch t := v.(type) {
	case *jsonv.Object:
		if t.Len() == 1 {
			if s, ok := t.Value("$float").(string); ok {
				switch s {
				case "nan":
					return jsonv.Float(math.NaN())
				case "inf":
					return jsonv.Float(math.Inf(1))
				case "-inf":
					return jsonv.Float(math.Inf(-1))
				}
			}
		}
		out := jsonv.NewObject()
		for _, m := range t.Members() {
			out.Set(m.Key, DecodeFloats(m.Value))
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = DecodeFloats(e)
		}
		return out
	}
	return v
}

// DecodeFloatsShared is decodeFloatsShared: DecodeFloats without the deep copy (see there).
func DecodeFloatsShared(v any) any { return decodeFloatsShared(v) }

// decodeFloatsShared is DecodeFloats without the deep copy: it returns v itself when v holds
// no {"$float": …} object and copies only the containers on the way to one. The result shares
// the rest with v, so neither may be modified afterwards.
func decodeFloatsShared(v any) any {
	switch t := v.(type) {
	case *jsonv.Object:
		if f, ok := floatMarker(t); ok {
			return f
		}
		members := t.Members()
		for i, m := range members {
			d := decodeFloatsShared(m.Value)
			if !sameValue(d, m.Value) {
				out := jsonv.NewObject()
				for _, before := range members[:i] {
					out.Set(before.Key, before.Value)
				}
				out.Set(m.Key, d)
				for _, after := range members[i+1:] {
					out.Set(after.Key, decodeFloatsShared(after.Value))
				}
				return out
			}
		}
		return t
	case []any:
		for i, e := range t {
			d := decodeFloatsShared(e)
			if !sameValue(d, e) {
				out := make([]any, len(t))
				copy(out, t[:i])
				out[i] = d
				for j := i + 1; j < len(t); j++ {
					out[j] = decodeFloatsShared(t[j])
				}
				return out
			}
		}
		return v // not t: boxing the slice again would allocate
	}
	return v
}

// sameValue reports whether decoding left a value as it was (only containers and $float
// objects can change, and they change identity when they do).
func sameValue(d, v any) bool {
	switch t := v.(type) {
	case *jsonv.Object:
		o, ok := d.(*jsonv.Object)
		return ok && o == t
	case []any:
		a, ok := d.([]any)
		return ok && len(a) == len(t) && (len(t) == 0 || &a[0] == &t[0])
	}
	return true
}

// floatMarker decodes {"$float": "nan"|"inf"|"-inf"}.
func floatMarker(o *jsonv.Object) (jsonv.Float, bool) {
	if o.Len() != 1 {
		return 0, false
	}
	switch s, _ := o.Value("$float").(string); s {
	case "nan":
		return jsonv.Float(math.NaN()), true
	case "inf":
		return jsonv.Float(math.Inf(1)), true
	case "-inf":
		return jsonv.Float(math.Inf(-1)), true
	}
	return 0, false
}

// FloorCall records one consultation of a floor provider.
type FloorCall struct {
	Provider   string // "market_cap_usd" or "adv_usd"
	Symbol     string
	AssetClass AssetClass
}

// StaticFloors is a FloorProvider over fixed data {market_cap_usd, adv_usd}: a number is the
// figure, null or absent means unavailable, "raise" means the provider is down. It records
// the calls it receives.
type StaticFloors struct {
	Data  any
	Calls []FloorCall
}

// ErrProviderDown is returned by a floor provider that cannot answer at all.
var ErrProviderDown = errors.New("universe data provider unavailable")

func (s *StaticFloors) figure(name, symbol string, class AssetClass) (*money.Amount, error) {
	s.Calls = append(s.Calls, FloorCall{Provider: name, Symbol: symbol, AssetClass: class})
	o, _ := s.Data.(*jsonv.Object)
	v, _ := o.Get(name)
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		if t == "raise" {
			return nil, ErrProviderDown
		}
	}
	a, err := DecimalFromJSON(v)
	if err != nil {
		return nil, nil // an unusable figure is no figure
	}
	return &a, nil
}

// MarketCapUSD implements FloorProvider.
func (s *StaticFloors) MarketCapUSD(_ context.Context, symbol string, class AssetClass) (*money.Amount, error) {
	return s.figure("market_cap_usd", symbol, class)
}

// AvgDailyVolumeUSD implements FloorProvider.
func (s *StaticFloors) AvgDailyVolumeUSD(_ context.Context, symbol string, class AssetClass) (*money.Amount, error) {
	return s.figure("adv_usd", symbol, class)
}
