package live

import (
	"strings"

	"cockpit/live/jsonv"
	"cockpit/live/pystr"
)

// mandateKeys are the keys a mandate document may carry, per object ("" is the top level).
var mandateKeys = map[string][]string{
	"":          {"schema_version", "mandate_id", "hard_caps", "universe", "flatten_on_halt", "consent", "controls"},
	"hard_caps": {"account_funding_usd", "max_order_notional_usd", "max_total_exposure_usd", "max_leverage", "allowed_instruments", "max_trades_per_day"},
	"universe":  {"asset_classes", "min_market_cap_usd", "min_avg_daily_volume_usd", "exclude_symbols"},
	"consent":   {"created_at", "consent_token_sha256", "broker", "account_ref", "expires_at"},
	"controls": {"max_order_quantity", "price_collar_bps", "max_quote_age_ms", "duplicate_window_ms", "max_orders_per_minute", "approval_timeout_s",
		"max_daily_loss_usd", "max_drawdown_pct"},
}

// CheckMandateKeys refuses a key a mandate document does not define, at the top level and in
// hard_caps, universe, consent and controls, naming it and the nearest known key: a
// misspelled `flaten_on_halt` must not silently mean "cancel-only". The gate's loader stays
// lenient (as the reference); commit, adopt, validate and the form are strict.
func CheckMandateKeys(doc *jsonv.Object) error {
	if err := checkKeys(doc, ""); err != nil {
		return err
	}
	for _, section := range []string{"hard_caps", "universe", "consent", "controls"} {
		if o, ok := doc.Object(section); ok {
			if err := checkKeys(o, section); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkKeys(o *jsonv.Object, section string) error {
	known := mandateKeys[section]
	for _, k := range o.Keys() {
		if contains(known, k) {
			continue
		}
		field, near := k, nearestKey(k, known)
		if section != "" {
			field, near = section+"."+k, section+"."+near
		}
		return &MandateError{Field: field, Msg: "unknown key (did you mean " + near + "?)"}
	}
	return nil
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// nearestKey is the known key at the smallest edit distance from k (case and separators
// ignored), the first one on a tie.
func nearestKey(k string, known []string) string {
	fold := func(s string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "", " ", "").Replace(s))
	}
	best, bestD := known[0], -1
	for _, c := range known {
		if d := editDistance(fold(k), fold(c)); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}

// ParseMandateDraft validates a document an operator is about to commit or check: a full
// mandate (with consent) or a draft (hard_caps, universe, optional controls and
// flatten_on_halt). Unknown keys are errors, and so is a consent expiry the gate could not
// read (it would be treated as expired).
func ParseMandateDraft(data []byte) (*Mandate, error) {
	doc, err := jsonv.Parse(data, jsonv.Options{RejectDuplicates: true, NonFinite: true})
	if err != nil {
		return nil, &MandateError{Msg: "not a JSON document: " + err.Error()}
	}
	o, ok := doc.(*jsonv.Object)
	if !ok {
		return nil, &MandateError{Msg: "the document is " + jsonv.TypeName(doc) + ", want an object"}
	}
	if err := CheckMandateKeys(o); err != nil {
		return nil, err
	}
	if !o.Has("consent") {
		return CapsFromJSON(o)
	}
	m, err := MandateFromJSON(o)
	if err != nil {
		return nil, err
	}
	if _, err := m.Expiry(); err != nil {
		return nil, &MandateError{Field: "consent.expires_at", Value: pystr.Repr(m.Consent.ExpiresAt),
			Msg: "is not a time the gate can read (an unparseable expiry is treated as expired)"}
	}
	return m, nil
}
