package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/session"
	"cockpit/store"
)

// failedLedger answers every lookup with an error, so every mandate reads as unverified.
type failedLedger struct{ err error }

func (f failedLedger) LastMandateHash(context.Context, string) (string, bool, error) {
	return "", false, f.err
}

// openLedger opens the root's store as the mandate ledger (DV13) for a verb that does not
// otherwise need it. Without a cockpit.db nothing was ever committed by cockpit, and a store
// that cannot be opened, or in a root others could change (session.CheckRoot), cannot vouch
// for anything: each makes every mandate unverified.
func openLedger(root live.Root) (live.MandateLedger, func()) {
	if err := session.CheckRoot(root); err != nil { // a store others could change records nothing
		return failedLedger{err}, func() {}
	}
	path := filepath.Join(root.Dir(), "cockpit.db")
	if _, err := os.Stat(path); err != nil {
		return failedLedger{errors.New("no cockpit.db: no commit is recorded")}, func() {}
	}
	db, err := store.Open(path)
	if err != nil {
		return failedLedger{err}, func() {}
	}
	return db, func() { db.Close() }
}

// verificationLine is the status line for a mandate that the gate will not trust ("" when it
// is verified, or there is nothing to verify).
func verificationLine(mj *jsonv.Object) string {
	v, _ := mj.Get("verification")
	switch v {
	case string(live.MandateTampered), string(live.MandateUnverified):
		d, _ := mj.Get("verification_detail")
		return fmt.Sprint(d)
	case string(live.MandateVerified):
		return "verified (the file is the mandate last committed)"
	}
	return ""
}

// deniedBy qualifies a broker's trading state when its mandate stops every order anyway, so
// the heading never reads ACTIVE alone above a mandate the gate refuses.
func deniedBy(mj *jsonv.Object, state any) string {
	if mj == nil || state == string(live.Halted) {
		return ""
	}
	v, _ := mj.Get("verification")
	switch v {
	case string(live.MandateVerified):
		if st, _ := mj.Get("status"); st == "expired" {
			return ", but every order is DENIED (mandate expired)"
		}
		return ""
	case string(live.MandateMissing):
		return ", but every order is DENIED (no mandate)"
	}
	return fmt.Sprintf(", but every order is DENIED (mandate %v)", v)
}
