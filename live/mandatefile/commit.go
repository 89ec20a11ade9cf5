package mandatefile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"cockpit/live"
	"cockpit/live/atomicfile"
	"cockpit/live/jsonv"
	"cockpit/live/pystr"
)

// DefaultMandateLifetime is how long a committed mandate lasts unless told otherwise.
const DefaultMandateLifetime = 30 * 24 * time.Hour

// CommitError is a refused commit; nothing was written.
type CommitError struct{ Msg string }

func (e *CommitError) Error() string { return "commit refused: " + e.Msg }

func commitErr(format string, args ...any) error {
	return &CommitError{Msg: fmt.Sprintf(format, args...)}
}

// ConsentToken is the consent token of reference C9: lower-case hex SHA-256 of
// "proposal_id|ordinal|consent_record_id|created_at".
func ConsentToken(proposalID string, ordinal int, consentRecordID, createdAt string) string {
	sum := sha256.Sum256([]byte(proposalID + "|" + strconv.Itoa(ordinal) + "|" + consentRecordID + "|" + createdAt))
	return hex.EncodeToString(sum[:])
}

// CommitResult is what a successful commit returns.
type CommitResult struct {
	MandateID       string
	ConsentRecordID string
	Broker          string
	ExpiresAt       string
	ResolvedProfile *jsonv.Object // the selected profile after adjustments (proposal commits)
	Mandate         *live.Mandate
	// DocumentSHA256 is the SHA-256 of the mandate.json bytes written; recording it in the
	// audit (CommitRecord) is what lets the gate verify the file (DV13).
	DocumentSHA256 string
}

// ---- the operator's file commit

// FileCommit commits a mandate the operator wrote: a JSON document with hard_caps, universe,
// and optionally controls and flatten_on_halt. The consent is the operator's typed
// confirmation; ConsentAck must be true.
type FileCommit struct {
	Root       live.Root
	Broker     string
	Document   []byte // the file's bytes; its SHA-256 becomes the proposal id
	Source     string // where it came from (a path), recorded in the consent record
	AccountRef string
	SessionID  string
	ConsentAck bool
	Lifetime   time.Duration // 0 = DefaultMandateLifetime
	Now        time.Time
	NewID      live.IDGen // nil = RandomID
}

// CommitFile validates and commits an operator-written mandate: consent record first, then
// mandate.json, each atomic and 0600.
func CommitFile(c FileCommit) (*CommitResult, error) {
	if !c.ConsentAck {
		return nil, commitErr("commit requires an explicit consent (the operator's confirmation)")
	}
	broker, err := live.NormalizeBroker(c.Broker)
	if err != nil {
		return nil, err
	}
	doc, err := jsonv.Parse(c.Document, jsonv.Options{RejectDuplicates: true, NonFinite: true})
	if err != nil {
		return nil, &live.MandateError{Msg: "not a JSON document: " + err.Error()}
	}
	obj, ok := doc.(*jsonv.Object)
	if !ok {
		return nil, &live.MandateError{Msg: "the document is " + jsonv.TypeName(doc) + ", want an object"}
	}
	if err := live.CheckMandateKeys(obj); err != nil {
		return nil, err
	}
	m, err := live.CapsFromJSON(obj)
	if err != nil {
		return nil, err
	}
	lifetime := c.Lifetime
	if lifetime <= 0 {
		lifetime = DefaultMandateLifetime
	}
	newID := c.NewID
	if newID == nil {
		newID = live.RandomID
	}
	sum := sha256.Sum256(c.Document)
	proposalID := "mp_" + hex.EncodeToString(sum[:16])
	created := c.Now.UTC()
	m.MandateID = newID("mandate")
	crID := newID("cr")
	m.Consent = live.Consent{
		CreatedAt:          live.FormatTimestamp(created),
		ConsentTokenSHA256: ConsentToken(proposalID, 1, crID, live.FormatTimestamp(created)),
		Broker:             broker,
		AccountRef:         c.AccountRef,
		ExpiresAt:          live.FormatTimestamp(created.Add(lifetime)),
	}
	record := consentRecord(crID, m, proposalID, 1, nil, c.SessionID, obj, nil)
	record.Set("source", c.Source)
	record.Set("document_sha256", hex.EncodeToString(sum[:]))
	hash, err := writeCommit(c.Root, broker, crID, record, m)
	if err != nil {
		return nil, err
	}
	return &CommitResult{MandateID: m.MandateID, ConsentRecordID: crID, Broker: broker,
		ExpiresAt: m.Consent.ExpiresAt, Mandate: m, DocumentSHA256: hash}, nil
}

// consentRecord builds the consent record of reference C12.
func consentRecord(crID string, m *live.Mandate, proposalID string, ordinal int, adjustments any,
	sessionID string, profile *jsonv.Object, ceilingsRef any) *jsonv.Object {
	return jsonv.ObjectOf(
		"consent_record_id", crID,
		"mandate_id", m.MandateID,
		"proposal_id", proposalID,
		"selected_ordinal", jsonv.Number(strconv.Itoa(ordinal)),
		"adjustments", adjustments,
		"consent_ack", true,
		"session_id", sessionID,
		"broker", m.Consent.Broker,
		"account_ref", m.Consent.AccountRef,
		"resolved_profile", profile,
		"flatten_on_halt", m.FlattenOnHalt,
		"ceilings_ref", ceilingsRef,
		"created_at", m.Consent.CreatedAt,
		"expires_at", m.Consent.ExpiresAt,
	)
}

// writeCommit writes the consent record, then the mandate, both atomically with mode 0600,
// and returns the SHA-256 of the mandate bytes written. The mandate is re-validated from the
// exact bytes written, so a commit can never leave a file the loader would refuse.
func writeCommit(root live.Root, broker, crID string, record *jsonv.Object, m *live.Mandate) (string, error) {
	data := jsonv.MustMarshal(m.Document(), jsonv.Python)
	if _, err := live.ParseMandate(data); err != nil {
		return "", err
	}
	if err := atomicfile.EnsureDir(root.ConsentDir(broker)); err != nil {
		return "", err
	}
	rec, err := jsonv.Marshal(record, jsonv.Python)
	if err != nil {
		return "", fmt.Errorf("consent record: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(root.ConsentDir(broker), crID+".json"), rec, 0o600); err != nil {
		return "", err
	}
	if err := atomicfile.WriteFile(root.MandatePath(broker), data, 0o600); err != nil {
		return "", err
	}
	return live.MandateHash(data), nil
}

// ---- the reference's proposal commit (C1–C12)

// ProposalCommit commits option Ordinal of a stored proposal (live/<broker>/proposals/<id>.json).
type ProposalCommit struct {
	Root          live.Root
	Broker        string
	ProposalID    string
	Ordinal       int
	Adjustments   *jsonv.Object // may only narrow numeric fields
	ConsentAck    any           // must be exactly the JSON boolean true
	FlattenOnHalt *bool         // explicit choice; nil = the profile's, else false
	Ceilings      *jsonv.Object // explicit ceilings; nil = the proposal's snapshot
	AccountRef    string
	SessionID     string
	LifetimeDays  *int // nil = 30 days; an explicit value is clamped to at least 1 (reference C6)
	Now           time.Time
	NewID         live.IDGen
}

var proposalIDPattern = regexp.MustCompile(`^mp_[0-9a-f]{32}$`)

// CommitProposal resolves, checks and writes a proposal commit, then deletes the proposal
// (one-shot: replaying it fails as "not live"). Adjustments may only narrow numbers; the
// resolved profile must stay within the ceilings.
func CommitProposal(c ProposalCommit) (*CommitResult, error) {
	if ack, ok := c.ConsentAck.(bool); !ok || !ack {
		return nil, commitErr("commit requires an explicit consent_ack=true")
	}
	broker, err := live.NormalizeBroker(c.Broker)
	if err != nil {
		return nil, err
	}
	proposal, path := loadProposal(c.Root, broker, c.ProposalID)
	if proposal == nil {
		return nil, commitErr("proposal %s is not live (already committed, expired, or unknown)", pystr.Repr(c.ProposalID))
	}
	profile := selectProfile(proposal, c.Ordinal)
	if profile == nil {
		return nil, commitErr("selected_ordinal %d is not in proposal %s", c.Ordinal, pystr.Repr(c.ProposalID))
	}
	profile = jsonv.Clone(profile).(*jsonv.Object)
	if err := applyAdjustments(profile, c.Adjustments); err != nil {
		return nil, err
	}
	ceilings := c.Ceilings
	if ceilings == nil {
		ceilings, _ = proposal.Object("ceilings")
	}
	if !withinCeilings(profile, ceilings) {
		return nil, commitErr("resolved profile exceeds the account ceilings — refusing to commit")
	}
	days := 30
	if c.LifetimeDays != nil {
		days = max(*c.LifetimeDays, 1)
	}
	newID := c.NewID
	if newID == nil {
		newID = live.RandomID
	}
	created := c.Now.UTC()
	m, err := mandateFromProfile(profile)
	if err != nil {
		return nil, err
	}
	switch {
	case c.FlattenOnHalt != nil:
		m.FlattenOnHalt = *c.FlattenOnHalt
	default:
		m.FlattenOnHalt = jsonv.Truthy(profile.Value("flatten_on_halt"))
	}
	m.MandateID = newID("mandate")
	crID := newID("cr")
	m.Consent = live.Consent{
		CreatedAt:          live.FormatTimestamp(created),
		ConsentTokenSHA256: ConsentToken(c.ProposalID, c.Ordinal, crID, live.FormatTimestamp(created)),
		Broker:             broker,
		AccountRef:         c.AccountRef,
		ExpiresAt:          live.FormatTimestamp(created.AddDate(0, 0, days)),
	}
	var adjustments any
	if c.Adjustments != nil {
		adjustments = c.Adjustments
	}
	ceilingsRef, _ := proposal.Get("ceilings_ref")
	record := consentRecord(crID, m, c.ProposalID, c.Ordinal, adjustments, c.SessionID, profile, ceilingsRef)
	hash, err := writeCommit(c.Root, broker, crID, record, m)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(path); err != nil {
		return nil, fmt.Errorf("mandate committed, but the proposal could not be retired: %w", err)
	}
	return &CommitResult{MandateID: m.MandateID, ConsentRecordID: crID, Broker: broker,
		ExpiresAt: m.Consent.ExpiresAt, ResolvedProfile: profile, Mandate: m, DocumentSHA256: hash}, nil
}

func loadProposal(root live.Root, broker, id string) (*jsonv.Object, string) {
	if !proposalIDPattern.MatchString(id) {
		return nil, ""
	}
	path := filepath.Join(root.ProposalDir(broker), id+".json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, ""
	}
	doc, err := jsonv.Parse(data, jsonv.Options{NonFinite: true})
	if err != nil {
		return nil, ""
	}
	o, _ := doc.(*jsonv.Object)
	return o, path
}

func selectProfile(proposal *jsonv.Object, ordinal int) *jsonv.Object {
	profiles, _ := proposal.Value("profiles").([]any)
	for _, p := range profiles {
		o, ok := p.(*jsonv.Object)
		if !ok {
			continue
		}
		if n, ok := numeric(o.Value("ordinal")); ok && n == float64(ordinal) {
			return o
		}
	}
	return nil
}

// applyAdjustments narrows the profile in place; a numeric increase (booleans count as
// numbers) is refused, as is a key the profile does not have.
func applyAdjustments(profile, adj *jsonv.Object) error {
	if adj == nil {
		return nil
	}
	for _, m := range adj.Members() {
		old, ok := profile.Get(m.Key)
		if !ok {
			return commitErr("adjustment %s is not a field of the selected profile", pystr.Repr(m.Key))
		}
		if o, ok := numeric(old); ok {
			if n, ok := numeric(m.Value); ok && n > o {
				return commitErr("adjustment %s=%s widens the rendered limit %s; widening must go through a fresh proposal",
					pystr.Repr(m.Key), live.DescribeValue(m.Value), live.DescribeValue(old))
			}
		}
		profile.Set(m.Key, m.Value)
	}
	return nil
}

// canonicalLimits projects a profile or ceilings object onto the four limits the ceiling
// check compares; the canonical spelling wins over its alias.
func canonicalLimits(o *jsonv.Object) map[string]any {
	out := map[string]any{}
	for _, pair := range [][2]string{
		{"max_order_notional_usd", "max_order_usd"},
		{"max_trades_per_day", "daily_trade_cap"},
		{"max_leverage", "leverage"},
		{"allowed_instruments", "instruments"},
	} {
		if v, ok := o.Get(pair[0]); ok {
			out[pair[0]] = v
		} else if v, ok := o.Get(pair[1]); ok {
			out[pair[0]] = v
		}
	}
	return out
}

func withinCeilings(profile, ceilings *jsonv.Object) bool {
	if ceilings == nil || ceilings.Len() == 0 {
		return true
	}
	p, c := canonicalLimits(profile), canonicalLimits(ceilings)
	for key, cv := range c {
		pv, ok := p[key]
		if !ok || key == "allowed_instruments" {
			continue
		}
		if key == "max_leverage" && cv == "none" {
			if f, ok := numeric(pv); pv == nil || pv == "none" || (ok && f == 1) {
				continue
			}
			return false
		}
		pn, ok1 := numeric(pv)
		cn, ok2 := numeric(cv)
		if ok1 && ok2 && pn > cn {
			return false
		}
	}
	return true
}

// mandateFromProfile maps a resolved profile to schema-1 caps and universe (reference C10).
func mandateFromProfile(p *jsonv.Object) (*live.Mandate, error) {
	lev := p.Value("leverage")
	leverage := any(jsonv.Number("1"))
	if lev != nil && lev != "none" {
		leverage = lev
	}
	instruments := orValue(p.Value("instruments"), []any{"equity"})
	funding := orValue(p.Value("account_funding_usd"), orValue(p.Value("max_total_exposure_usd"), jsonv.Number("0")))
	orderCap := orValue(p.Value("max_order_usd"), jsonv.Number("0"))
	exposure := orValue(p.Value("max_total_exposure_usd"), orValue(funding, orderCap))
	funding = orValue(funding, exposure)
	trades := orValue(p.Value("daily_trade_cap"), jsonv.Number("0"))
	caps := jsonv.ObjectOf(
		"account_funding_usd", funding,
		"max_order_notional_usd", orderCap,
		"max_total_exposure_usd", exposure,
		"max_leverage", leverage,
		"allowed_instruments", instruments,
		"max_trades_per_day", trades,
	)
	uni := jsonv.ObjectOf(
		"asset_classes", orValue(p.Value("asset_classes"), []any{"us_equity"}),
		"min_market_cap_usd", p.Value("min_market_cap_usd"),
		"min_avg_daily_volume_usd", p.Value("min_avg_daily_volume_usd"),
		"exclude_symbols", orValue(p.Value("exclude_symbols"), []any{}),
	)
	return live.CapsFromJSON(jsonv.ObjectOf("hard_caps", caps, "universe", uni))
}

// orValue is Python's `a or b`.
func orValue(a, b any) any {
	if jsonv.Truthy(a) {
		return a
	}
	return b
}

// numeric returns a JSON number or boolean as a float64 (Python counts booleans as numbers).
func numeric(v any) (float64, bool) {
	switch t := v.(type) {
	case bool:
		if t {
			return 1, true
		}
		return 0, true
	case jsonv.Number, jsonv.Float:
		return jsonv.ToFloat(t)
	}
	return 0, false
}
