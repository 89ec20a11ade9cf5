package mandatefile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/pystr"
)

// Load reads and strictly validates the committed mandate of a broker. It returns
// ErrNoMandate when there is no file and a *MandateError when the file is not a valid mandate.
func Load(root live.Root, broker string) (*live.Mandate, error) {
	_, data, err := readMandateFile(root, broker)
	if err != nil {
		return nil, err
	}
	return live.ParseMandate(data)
}

// readMandateFile returns broker's normalised key and the bytes of its mandate.json;
// ErrNoMandate when there is no file.
func readMandateFile(root live.Root, broker string) (string, []byte, error) {
	key, err := live.NormalizeBroker(broker)
	if err != nil {
		return "", nil, err
	}
	data, err := os.ReadFile(root.MandatePath(key))
	if errors.Is(err, fs.ErrNotExist) {
		return key, nil, live.ErrNoMandate
	}
	if err != nil {
		return key, nil, fmt.Errorf("read mandate: %w", err)
	}
	return key, data, nil
}

// Read reads broker's mandate.json once, hashes and parses that same buffer, and
// compares the hash with the last commit the ledger holds. A nil ledger verifies nothing: the
// state is unverified (fail closed).
func Read(ctx context.Context, root live.Root, ledger live.MandateLedger, broker string) live.MandateCheck {
	key, err := live.NormalizeBroker(broker)
	if err != nil {
		return live.MandateCheck{State: live.MandateInvalid, Err: err}
	}
	data, err := os.ReadFile(root.MandatePath(key))
	if errors.Is(err, fs.ErrNotExist) {
		return live.MandateCheck{State: live.MandateMissing, Err: live.ErrNoMandate}
	}
	if err != nil {
		return live.MandateCheck{State: live.MandateInvalid, Err: fmt.Errorf("read mandate: %w", err)}
	}
	c := live.MandateCheck{Hash: live.MandateHash(data)}
	m, err := live.ParseMandate(data)
	if err != nil {
		c.State, c.Err = live.MandateInvalid, err
		return c
	}
	c.Mandate = m
	if ledger == nil {
		c.State, c.Err = live.MandateUnverified, errors.New("no mandate ledger attached")
		return c
	}
	recorded, ok, err := ledger.LastMandateHash(ctx, key)
	switch {
	case err != nil:
		c.State, c.Err = live.MandateUnverified, fmt.Errorf("mandate ledger unreadable: %w", err)
	case !ok:
		c.State = live.MandateUnverified
	case recorded != c.Hash:
		c.State, c.Recorded = live.MandateTampered, recorded
	default:
		c.State, c.Recorded = live.MandateVerified, recorded
	}
	return c
}

// CommitRecord is the audit record of a commit (or an adoption, tool "adopt"): it
// carries the committed document's hash, which is what the ledger reads back.
func CommitRecord(now time.Time, actor live.Principal, tool, source string, res *CommitResult) live.AuditRecord {
	verb := "commit"
	if tool == "adopt" {
		verb = "adopt"
	}
	return live.AuditRecord{Time: now, Actor: actor, Kind: live.KindMandateCommitted, Outcome: live.OutcomeAccepted,
		Broker: res.Broker, Tool: tool, MandateRef: res.Mandate.Consent.ConsentTokenSHA256,
		ConsentRef: res.Mandate.Consent.AccountRef,
		Intent:     fmt.Sprintf("%s mandate %s for %s until %s", verb, res.MandateID, res.Broker, res.ExpiresAt),
		Request:    res.Mandate.Document(),
		Detail: jsonv.ObjectOf(live.MandateHashKey, res.DocumentSHA256, "mandate_id", res.MandateID,
			"consent_record_id", res.ConsentRecordID, "expires_at", res.ExpiresAt, "source", source)}
}

// Verified returns broker's mandate when it is exactly the last commit, else nil (for
// the readers that act on its settings, such as flatten_on_halt).
func Verified(ctx context.Context, root live.Root, ledger live.MandateLedger, broker string) *live.Mandate {
	if c := Read(ctx, root, ledger, broker); c.Verified() {
		return c.Mandate
	}
	return nil
}

// Adoption is a mandate written by another tool sharing the root (Vibe-Trading's commit),
// read once: adopting it records the hash of exactly these bytes (DV13).
type Adoption struct {
	Broker  string
	Mandate *live.Mandate
	Result  *CommitResult // what CommitRecord needs to record the adoption
}

// ReadForAdoption reads broker's mandate.json for `cockpit mandate adopt`: it must be a
// complete, valid mandate with no unknown keys, a readable expiry, and consent for this broker.
func ReadForAdoption(root live.Root, broker string) (*Adoption, error) {
	key, data, err := readMandateFile(root, broker)
	if err != nil {
		return nil, err
	}
	doc, err := jsonv.Parse(data, jsonv.Options{RejectDuplicates: true, NonFinite: true})
	if err != nil {
		return nil, &live.MandateError{Msg: "not a JSON document: " + err.Error()}
	}
	if o, ok := doc.(*jsonv.Object); ok && !o.Has("consent") {
		return nil, &live.MandateError{Field: "consent", Msg: "is missing: only a committed mandate can be adopted"}
	}
	m, err := live.ParseMandateDraft(data)
	if err != nil {
		return nil, err
	}
	if m.Consent.Broker != key {
		return nil, &live.MandateError{Field: "consent.broker", Value: pystr.Repr(m.Consent.Broker),
			Msg: "does not name broker " + pystr.Repr(key) + ": the consent was given for another broker"}
	}
	return &Adoption{Broker: key, Mandate: m, Result: &CommitResult{MandateID: m.MandateID, Broker: key,
		ExpiresAt: m.Consent.ExpiresAt, Mandate: m, DocumentSHA256: live.MandateHash(data)}}, nil
}
