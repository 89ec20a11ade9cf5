package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"cockpit/live"
	"cockpit/live/counter"
	"cockpit/live/halt"
	"cockpit/live/jsonv"
	"cockpit/live/mandatefile"
	"cockpit/live/vibe"
)

// auditChainCategory writes the payloads through cockpit's Vibe-Trading mirror and checks
// the chained records, the first hash, verification, and that editing the first line is
// caught at that line.
func auditChainCategory(e *env, v any) []outcome {
	c := obj(v)
	root := e.root()
	m := &vibe.Mirror{Root: root}
	payloads, _ := get(c, "payloads").([]any)
	for _, p := range payloads {
		if err := m.AppendPayload(obj(live.DecodeFloats(p))); err != nil {
			return []outcome{failf("append: %v", err)}
		}
	}
	var outs []outcome
	lines, err := readLines(m.ChainPath())
	if err != nil {
		return []outcome{failf("%v", err)}
	}
	want, _ := get(c, "expected_records").([]any)
	recs := pass()
	if len(lines) != len(want) {
		recs = failf("%d chained records, oracle %d", len(lines), len(want))
	} else {
		for i := range want {
			got, err := jsonv.ParseString(lines[i], jsonv.Options{NonFinite: true})
			if err != nil || !jsonv.Equal(got, want[i]) {
				recs = failf("record %d: %s, oracle %s", i, lines[i], show(want[i]))
				break
			}
		}
	}
	recs.id = "expected_records"
	outs = append(outs, recs)
	first := pass()
	if got, _ := jsonv.ParseString(lines[0], jsonv.Options{}); strOf(obj(got), "record_hash") != strOf(c, "expected_hash_of_first") {
		first = failf("first hash %s, oracle %s", strOf(obj(got), "record_hash"), strOf(c, "expected_hash_of_first"))
	}
	first.id = "expected_hash_of_first"
	outs = append(outs, first)
	ok := vibe.VerifyChain(m.ChainPath())
	vo := pass()
	if wantOK := obj(get(c, "verify_ok")); !ok.OK || float64(ok.Records) != mustFloat(get(wantOK, "record_count")) {
		vo = failf("verify: %+v", ok)
	}
	vo.id = "verify_ok"
	outs = append(outs, vo)
	edited := strings.Replace(lines[0], `"kind": "halt_tripped"`, `"kind": "halt_cleared"`, 1)
	if edited == lines[0] {
		edited = strings.Replace(lines[0], `"seq": 1,`, `"seq": 1, "tampered": true,`, 1)
	}
	lines[0] = edited
	if err := os.WriteFile(m.ChainPath(), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		return append(outs, failf("%v", err))
	}
	bad := vibe.VerifyChain(m.ChainPath())
	wantBreak := obj(get(obj(get(c, "verify_after_editing_first_line")), "first_break"))
	vb := pass()
	if bad.OK || bad.Break.Index != int(mustFloat(get(wantBreak, "index"))) ||
		float64(bad.Break.Seq) != mustFloat(get(wantBreak, "seq")) || bad.Break.Reason != strOf(wantBreak, "reason") {
		vb = failf("after editing line 1: %+v, oracle %s", bad.Break, show(wantBreak))
	}
	vb.id = "verify_after_editing_first_line"
	return append(outs, vb)
}

func mustFloat(v any) float64 {
	f, _ := floatOf(v)
	return f
}

func readLines(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n"), nil
}

// recordShapeCase checks the mirror's record layout: field order, chain keys, the genesis
// link, the trailing newline and the directory mode.
func recordShapeCase(e *env, c *jsonv.Object) outcome {
	root := e.root()
	m := &vibe.Mirror{Root: root}
	if err := m.Record(context.Background(), live.AuditRecord{Kind: live.KindHaltTripped, Outcome: live.OutcomeBlocked, Broker: "robinhood"}); err != nil {
		return failf("%v", err)
	}
	data, err := os.ReadFile(filepath.Join(root.LiveDir(), "audit.jsonl"))
	if err != nil {
		return failf("%v", err)
	}
	if want, _ := get(c, "ledger_line_ends_with_newline").(bool); want != strings.HasSuffix(string(data), "\n") {
		return failf("ledger line ends with newline: %v", !want)
	}
	rec, _ := jsonv.Parse([]byte(strings.TrimSpace(string(data))), jsonv.Options{})
	if want := get(c, "expected_key_order"); !jsonv.Equal(want, strList(obj(rec).Keys())) {
		return failf("key order %v, oracle %s", obj(rec).Keys(), show(want))
	}
	lines, _ := readLines(m.ChainPath())
	chained, _ := jsonv.ParseString(lines[0], jsonv.Options{})
	keys := obj(chained).Keys()
	if want := get(c, "expected_chain_extra_keys"); !jsonv.Equal(want, strList(keys[len(keys)-3:])) {
		return failf("chain keys %v, oracle %s", keys[len(keys)-3:], show(want))
	}
	if want := strOf(c, "chain_first_prev_hash"); strOf(obj(chained), "prev_record_hash") != want {
		return failf("first prev hash %s, oracle %s", strOf(obj(chained), "prev_record_hash"), want)
	}
	return permissionsDiff(root, jsonv.ObjectOf("live", get(c, "ledger_perms_dir")))
}

// filePermissionsCategory creates, through cockpit's own operations, every runtime file it
// shares with the reference and checks that none is looser than the reference's mode.
// Files cockpit never writes (proposals, runtime_state.json, the runner's files) are not
// checked.
func filePermissionsCategory(e *env, v any) []outcome {
	c := obj(v)
	root := e.root()
	ctx := context.Background()
	steps := []error{
		trip(root, live.GlobalScope, e), trip(root, live.BrokerScope("robinhood"), e),
		(&vibe.Mirror{Root: root}).Record(ctx, live.AuditRecord{Kind: live.KindHaltTripped, Outcome: live.OutcomeBlocked}),
		lockOnce(root),
		commitOnce(root, e),
	}
	if _, err := counter.IncrementDailyCount(root, "robinhood", e.now); err != nil {
		steps = append(steps, err)
	}
	for _, err := range steps {
		if err != nil {
			return []outcome{failf("setup: %v", err)}
		}
	}
	modes := obj(get(c, "modes"))
	var outs []outcome
	for _, mm := range modes.Members() {
		want, _ := mm.Value.(string)
		rel := strings.TrimSuffix(mm.Key, "/")
		if strings.Contains(rel, "<hex>") {
			matches, _ := filepath.Glob(filepath.Join(root.Dir(), strings.ReplaceAll(rel, "<hex>", "*")))
			if len(matches) == 0 {
				continue
			}
			rel, _ = filepath.Rel(root.Dir(), matches[0])
		}
		if _, err := os.Stat(filepath.Join(root.Dir(), rel)); errors.Is(err, fs.ErrNotExist) {
			continue // a file of the reference's runner or proposal flow; cockpit has none
		}
		o := noLooser(root, rel, want)
		o.id = mm.Key
		outs = append(outs, o)
	}
	return outs
}

func noLooser(root live.Root, rel, want string) outcome {
	var mode uint32
	fmt.Sscanf(strings.TrimPrefix(want, "0o"), "%o", &mode)
	fi, err := os.Stat(filepath.Join(root.Dir(), rel))
	if err != nil {
		return failf("%v", err)
	}
	if got := uint32(fi.Mode().Perm()); got&^mode != 0 {
		return failf("%s is %o, looser than the oracle's %o", rel, got, mode)
	}
	return pass()
}

func trip(root live.Root, s live.Scope, e *env) error {
	_, err := halt.Trip(root, live.HaltSentinel, s, "test", "perms", e.now)
	return err
}

func lockOnce(root live.Root) error {
	l, err := counter.TrySubmitLock(root, "robinhood")
	if err != nil {
		return err
	}
	return l.Unlock()
}

func commitOnce(root live.Root, e *env) error {
	doc := `{"hard_caps": {"account_funding_usd": 1, "max_order_notional_usd": 1, "max_total_exposure_usd": 1,
	 "max_leverage": 1, "allowed_instruments": ["equity"], "max_trades_per_day": 1},
	 "universe": {"asset_classes": ["us_equity"], "min_market_cap_usd": null, "min_avg_daily_volume_usd": null, "exclude_symbols": []}}`
	_, err := mandatefile.CommitFile(mandatefile.FileCommit{Root: root, Broker: "robinhood", Document: []byte(doc), ConsentAck: true, Now: e.now})
	return err
}
