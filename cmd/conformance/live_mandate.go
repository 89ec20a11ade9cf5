package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"cockpit/live"
	"cockpit/live/jsonv"
	"cockpit/live/mandatefile"
)

// mandateLoadCase writes a mandate file and compares what the loader makes of it.
func mandateLoadCase(e *env, c *jsonv.Object) outcome {
	root := e.root()
	const broker = "robinhood"
	var data []byte
	if text, ok := str(c, "file_text"); ok {
		data = []byte(text)
	} else {
		var err error
		if data, err = jsonv.Marshal(live.DecodeFloats(get(c, "file_json")), jsonv.Python); err != nil {
			return failf("cannot write file_json: %v", err)
		}
	}
	path := root.MandatePath(broker)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return failf("%v", err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return failf("%v", err)
	}
	m, err := mandatefile.Load(root, broker)
	exp := obj(live.DecodeFloats(get(c, "expected")))
	switch {
	case exp == nil && err != nil:
		return pass()
	case exp == nil:
		return failf("loaded a mandate the oracle refuses")
	case err != nil:
		var me *live.MandateError
		if errors.As(err, &me) && me.Strict {
			if strings.Contains(me.Msg, "non-finite") {
				return deviation("DV9", "%v", err)
			}
			return deviation("DV1", "%v", err)
		}
		return failf("refused (%v), oracle loads it", err)
	}
	if diff := documentDiff(exp, m.Document()); diff != "" {
		return failf("%s", diff)
	}
	return pass()
}

// documentDiff compares the keys the oracle reports with cockpit's document.
func documentDiff(want, got *jsonv.Object) string {
	for _, m := range want.Members() {
		g, ok := got.Get(m.Key)
		if !ok {
			return fmt.Sprintf("cockpit has no %q", m.Key)
		}
		if !jsonv.Equal(m.Value, g) {
			return fmt.Sprintf("%s = %s, oracle %s", m.Key, show(g), show(m.Value))
		}
	}
	return ""
}

// mandateCommitCase stores the proposal, commits it as many times as the oracle did, and
// compares results, the files written, the proposal's fate and the permissions.
func mandateCommitCase(e *env, c *jsonv.Object) outcome {
	root := e.root()
	call := obj(get(c, "call"))
	broker, _ := str(call, "broker")
	proposalID, _ := str(call, "proposal_id")
	if p := obj(get(c, "proposal")); p != nil {
		dir := root.ProposalDir(broker)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return failf("%v", err)
		}
		if err := os.WriteFile(filepath.Join(dir, proposalID+".json"), jsonv.MustMarshal(p, jsonv.Python), 0o600); err != nil {
			return failf("%v", err)
		}
	}
	clockText, _ := str(c, "clock")
	now, err := live.ParseExpiry(clockText)
	if err != nil {
		return failf("bad clock %q", clockText)
	}
	n := 0
	newID := func(prefix string) string { n++; return fmt.Sprintf("%s_%032x", prefix, n) }
	req := mandatefile.ProposalCommit{
		Root: root, Broker: broker, ProposalID: proposalID, Now: now, NewID: newID,
		ConsentAck:  get(call, "consent_ack"),
		Ceilings:    obj(get(call, "ceilings_ref")),
		Adjustments: obj(get(call, "adjustments")),
	}
	req.AccountRef, _ = str(call, "account_ref")
	req.SessionID, _ = str(call, "session_id")
	if f, ok := floatOf(get(call, "ordinal")); ok {
		req.Ordinal = int(f)
	}
	if f, ok := get(call, "flatten_on_halt").(bool); ok {
		req.FlattenOnHalt = &f
	}
	if f, ok := floatOf(get(call, "lifetime_days")); ok {
		days := int(f)
		req.LifetimeDays = &days
	}
	exp := obj(get(c, "expected"))
	results, _ := get(exp, "results").([]any)
	for i, raw := range results {
		want := obj(raw)
		n = 0
		res, err := mandatefile.CommitProposal(req)
		_, wantRaise := want.Get("raised")
		switch {
		case wantRaise && err == nil:
			return failf("commit %d succeeded, oracle raised %s", i, show(get(want, "message")))
		case !wantRaise && err != nil:
			var me *live.MandateError
			if errors.As(err, &me) && me.Strict {
				return deviation("DV1", "commit %d refused: %v", i, err)
			}
			return failf("commit %d failed: %v", i, err)
		case err == nil:
			got := jsonv.ObjectOf("mandate_id", res.MandateID, "consent_record_id", res.ConsentRecordID,
				"broker", res.Broker, "expires_at", res.ExpiresAt, "resolved_profile", res.ResolvedProfile)
			if diff := documentDiff(obj(get(want, "returned")), got); diff != "" {
				return failf("commit %d returned %s", i, diff)
			}
		}
	}
	if diff := committedFileDiff(root.MandatePath(broker), get(exp, "mandate_json")); diff != "" {
		return failf("mandate.json: %s", diff)
	}
	if rec := obj(get(exp, "consent_record")); rec != nil {
		id, _ := str(rec, "consent_record_id")
		if diff := committedFileDiff(filepath.Join(root.ConsentDir(broker), id+".json"), rec); diff != "" {
			return failf("consent record: %s", diff)
		}
	}
	if want, ok := get(exp, "proposal_file_remaining").(bool); ok {
		_, err := os.Stat(filepath.Join(root.ProposalDir(broker), proposalID+".json"))
		if got := err == nil; got != want {
			return failf("proposal file remaining = %v, oracle %v", got, want)
		}
	}
	return permissionsDiff(root, obj(get(exp, "permissions")))
}

func committedFileDiff(path string, want any) string {
	data, err := os.ReadFile(path)
	if want == nil {
		if err == nil {
			return "written, oracle wrote none"
		}
		return ""
	}
	if err != nil {
		return err.Error()
	}
	got, err := jsonv.Parse(data, jsonv.Options{})
	if err != nil {
		return err.Error()
	}
	if !jsonv.Equal(got, want) {
		return fmt.Sprintf("%s, oracle %s", show(got), show(want))
	}
	return ""
}

// permissionsDiff requires files to carry exactly the oracle's mode; directories may be
// stricter than the reference's umask-dependent 0755 (design §2: directories are 0700).
func permissionsDiff(root live.Root, perms *jsonv.Object) outcome {
	for _, m := range perms.Members() {
		want, _ := m.Value.(string)
		var mode uint32
		if _, err := fmt.Sscanf(strings.TrimPrefix(want, "0o"), "%o", &mode); err != nil {
			return failf("unreadable mode %q", want)
		}
		fi, err := os.Stat(filepath.Join(root.Dir(), m.Key))
		if errors.Is(err, fs.ErrNotExist) {
			return failf("%s does not exist", m.Key)
		}
		if err != nil {
			return failf("%v", err)
		}
		got := uint32(fi.Mode().Perm())
		if fi.IsDir() {
			if got&^mode != 0 {
				return failf("%s is %o, looser than the oracle's %o", m.Key, got, mode)
			}
			continue
		}
		if got != mode {
			return failf("%s is %o, oracle %o", m.Key, got, mode)
		}
	}
	return pass()
}
