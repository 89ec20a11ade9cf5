package live

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"cockpit/live/jsonv"
)

// Reason codes of the mandate's integrity check (DV13).
const (
	ReasonMandateTampered   Reason = "mandate_tampered"
	ReasonMandateUnverified Reason = "mandate_unverified"
)

// integrityWords describe the integrity denials for people (DescribeDenial).
var integrityWords = map[Reason]string{
	ReasonMandateTampered:   "mandate.json is not the mandate last committed — commit it again",
	ReasonMandateUnverified: "no commit of this mandate is recorded — commit it, or adopt it with cockpit mandate adopt",
}

// MandateHashKey is the detail key of a mandate_committed audit record that carries the
// SHA-256 of the committed mandate.json bytes.
const MandateHashKey = "mandate_sha256"

// MandateLedger knows which mandate document was last committed for each broker (DV13). The
// store implements it from its audit chain; auditsink.Memory implements it for tests.
type MandateLedger interface {
	// LastMandateHash returns the hex SHA-256 of the mandate.json bytes last committed (or
	// adopted) for broker; ok is false when the last commit recorded no hash, or there is none.
	LastMandateHash(ctx context.Context, broker string) (hash string, ok bool, err error)
}

// MandateHash is the hex SHA-256 of a mandate document's exact bytes: the mandate is what was
// consented to, byte for byte.
func MandateHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// MandateState says whether the mandate on file is the one last committed.
type MandateState string

// Mandate states.
const (
	MandateVerified   MandateState = "verified"   // the file is the last commit, byte for byte
	MandateTampered   MandateState = "tampered"   // the file differs from the last commit
	MandateUnverified MandateState = "unverified" // no commit is recorded, or the record cannot be read
	MandateMissing    MandateState = "missing"    // no mandate file
	MandateInvalid    MandateState = "invalid"    // the file is not a valid mandate
)

// MandateCheck is a mandate read from disk once and checked against the ledger.
type MandateCheck struct {
	Mandate  *Mandate // the parsed file (nil when missing or invalid); it is NOT verified unless State says so
	State    MandateState
	Hash     string // SHA-256 of the bytes read
	Recorded string // the hash the ledger holds for the broker ("" when none)
	Err      error  // why the file is invalid, or why the ledger could not answer
}

// Verified reports a mandate that is valid and exactly the last commit.
func (c MandateCheck) Verified() bool { return c.State == MandateVerified }

// Describe is a one-line account of the state for an operator.
func (c MandateCheck) Describe() string {
	switch c.State {
	case MandateVerified:
		return "verified: the file is the mandate last committed"
	case MandateTampered:
		return "TAMPERED: mandate.json differs from the mandate last committed; every order is denied until it is committed again"
	case MandateUnverified:
		msg := "UNVERIFIED: no commit of this mandate is recorded; every order is denied until it is committed or adopted (cockpit mandate adopt)"
		if c.Err != nil {
			msg += " (" + c.Err.Error() + ")"
		}
		return msg
	case MandateMissing:
		return "no mandate committed"
	}
	return "invalid: " + errText(c.Err, "unreadable")
}

// Denial turns a check that is not verified into the gate's refusal (nil when verified).
func (c MandateCheck) Denial(broker string) *Denial {
	switch c.State {
	case MandateVerified:
		return nil
	case MandateMissing:
		return NewDenial(ReasonNoMandate, "broker", broker)
	case MandateInvalid:
		return NewDenial(ReasonInvalidMandate, "broker", broker, "error", errText(c.Err, "unreadable"))
	case MandateTampered:
		return NewDenial(ReasonMandateTampered, "broker", broker, "file_sha256", c.Hash, "committed_sha256", c.Recorded)
	}
	d := NewDenial(ReasonMandateUnverified, "broker", broker, "file_sha256", c.Hash)
	if c.Err != nil {
		d.Fields["error"] = c.Err.Error()
	}
	return d
}

// MandateHashOf reads the committed hash out of a mandate_committed record's detail.
func MandateHashOf(detail any) (string, bool) {
	o, ok := detail.(*jsonv.Object)
	if !ok {
		return "", false
	}
	v, _ := o.Get(MandateHashKey)
	h, ok := v.(string)
	return h, ok && len(h) == sha256.Size*2
}

// errText is err's text, or fallback when err is nil.
func errText(err error, fallback string) string {
	if err != nil {
		return err.Error()
	}
	return fallback
}
