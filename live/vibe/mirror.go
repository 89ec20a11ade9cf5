package vibe

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/gofrs/flock"

	"cockpit/live"
	"cockpit/live/auditsink"
	"cockpit/live/jsonv"
	"cockpit/live/redact"
)

// Mirror also writes the audit in Vibe-Trading's format, so a Vibe-Trading install sharing
// the runtime root sees cockpit's decisions: live/audit.jsonl (one record per line) and
// live/audit_chain.jsonl (the same records hash-chained). Records are redacted before either
// file is written. It is optional (config audit.vibe_mirror).
type Mirror struct {
	Root live.Root
	mu   sync.Mutex
}

var _ live.AuditSink = (*Mirror)(nil)

// GenesisChainHash is the prev_record_hash of the first chained record.
const GenesisChainHash = "sha256:genesis"

func (m *Mirror) ledgerPath() string { return filepath.Join(m.Root.LiveDir(), "audit.jsonl") }

// ChainPath is the hash-chained mirror file.
func (m *Mirror) ChainPath() string { return filepath.Join(m.Root.LiveDir(), "audit_chain.jsonl") }

// Record implements AuditSink: the record in the reference's shape and field order.
func (m *Mirror) Record(_ context.Context, r live.AuditRecord) error {
	r = auditsink.Redact(r)
	nullable := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	var gd any
	if d := r.Decision; d != nil {
		checked := make([]any, len(d.Checked))
		for i, c := range d.Checked {
			checked[i] = c
		}
		g := jsonv.ObjectOf("allowed", d.Allowed, "decision", string(d.Decision))
		if d.Limit != "" {
			g.Set("limit", d.Limit)
			g.Set("kind", d.Kind)
			if d.LimitValue != nil {
				g.Set("limit_value", live.EncodeAmount(*d.LimitValue))
			}
			if d.Attempted != nil {
				g.Set("attempted_value", live.EncodeAmount(*d.Attempted))
			}
		} else {
			g.Set("checked_limits", checked)
		}
		gd = g
	}
	rec := jsonv.ObjectOf(
		"audit_id", live.RandomID("la"),
		"ts", r.Time.UTC().Format("2006-01-02T15:04:05.000+00:00"),
		"session_id", r.Actor.SessionID,
		"kind", r.Kind,
		"intent_normalized", nullable(r.Intent),
		"mandate_snapshot_ref", nullable(r.MandateRef),
		"consent_record_ref", nullable(r.ConsentRef),
		"broker_request", r.Request,
		"broker_response", r.Response,
		"outcome", r.Outcome,
		"gate_decision", gd,
		"server", r.Broker,
		"remote_tool", r.Tool,
		"error", nullable(r.Error),
	)
	return m.AppendPayload(rec)
}

// AppendPayload redacts one record and appends it to both files: the ledger line, then the
// chained line. Appending re-verifies the existing chain under an exclusive lock and refuses
// to extend a broken chain (the ledger line is still written, as in the reference).
func (m *Mirror) AppendPayload(payload *jsonv.Object) error {
	return m.AppendPayloads([]*jsonv.Object{payload})
}

// AppendPayloads is AppendPayload for several records in order, under one lock and one
// verification of the existing chain (an import, a large test fixture).
func (m *Mirror) AppendPayloads(payloads []*jsonv.Object) error {
	if len(payloads) == 0 {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var ledger, chain []byte
	redacted := make([]*jsonv.Object, len(payloads))
	for i, p := range payloads {
		redacted[i] = redact.ForStorage(p).(*jsonv.Object)
		line, err := jsonv.Marshal(redacted[i], jsonv.Python)
		if err != nil {
			return fmt.Errorf("audit mirror: %w", err)
		}
		ledger = append(append(ledger, line...), '\n')
	}
	if err := appendLine(m.ledgerPath(), bytes.TrimSuffix(ledger, []byte("\n"))); err != nil {
		return fmt.Errorf("audit mirror ledger: %w", err)
	}
	lock := flock.New(filepath.Join(m.Root.LiveDir(), ".audit_chain.lock"), flock.SetPermissions(0o600))
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("audit mirror chain lock: %w", err)
	}
	defer lock.Unlock()
	rep := VerifyChain(m.ChainPath())
	if !rep.OK {
		return fmt.Errorf("audit mirror: the chain is broken at record %d (%s); not extending it", rep.Break.Index, rep.Break.Reason)
	}
	seq, prev := rep.Records, rep.LastHash
	for _, payload := range redacted {
		seq++
		hash, err := chainHash(seq, prev, payload)
		if err != nil {
			return err
		}
		chained := jsonv.Clone(payload).(*jsonv.Object)
		chained.Set("seq", jsonv.Number(fmt.Sprint(seq)))
		chained.Set("prev_record_hash", prev)
		chained.Set("record_hash", hash)
		cl, err := jsonv.Marshal(chained, jsonv.Python)
		if err != nil {
			return err
		}
		chain, prev = append(append(chain, cl...), '\n'), hash
	}
	return appendLine(m.ChainPath(), bytes.TrimSuffix(chain, []byte("\n")))
}

// chainHash is "sha256:" + hex SHA-256 of the canonical JSON of {seq, prev_record_hash, payload}.
func chainHash(seq int64, prev string, payload *jsonv.Object) (string, error) {
	b, err := jsonv.CanonicalPython(jsonv.ObjectOf("seq", jsonv.Number(fmt.Sprint(seq)), "prev_record_hash", prev, "payload", payload))
	if err != nil {
		return "", fmt.Errorf("audit mirror: %w", err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

func appendLine(path string, line []byte) error {
	if err := makeDir(filepath.Dir(path)); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ChainReport is the result of verifying a mirror chain file.
type ChainReport struct {
	OK       bool
	Records  int64 // records verified before any break
	LastHash string
	Break    *MirrorBreak
}

// MirrorBreak is the first bad line of a chain file.
type MirrorBreak struct {
	Index  int
	Seq    int64
	Reason string // record_hash_mismatch, prev_record_hash_mismatch, seq_mismatch, unreadable
	Detail string
}

// VerifyChain recomputes a chain file; a missing file is an empty, intact chain.
func VerifyChain(path string) ChainReport {
	rep := ChainReport{OK: true, LastHash: GenesisChainHash}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return rep
	}
	fail := func(i int, seq int64, reason, detail string) ChainReport {
		return ChainReport{OK: false, Records: 0, LastHash: rep.LastHash, Break: &MirrorBreak{Index: i, Seq: seq, Reason: reason, Detail: detail}}
	}
	if err != nil {
		return fail(0, 0, "unreadable", err.Error())
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 64<<20)
	for i := 0; sc.Scan(); i++ {
		_, seq, hash, b := checkLine(sc.Bytes(), i, rep.Records, rep.LastHash)
		if b != nil {
			return fail(i, b.Seq, b.Reason, b.Detail)
		}
		rep.Records, rep.LastHash = seq, hash
	}
	return rep
}

// checkLine verifies the chained line at index i against the chain so far (records verified,
// the last record hash): it returns the parsed record, its seq and record hash, or the break.
func checkLine(line []byte, i int, records int64, lastHash string) (*jsonv.Object, int64, string, *MirrorBreak) {
	doc, err := jsonv.Parse(line, jsonv.Options{NonFinite: true})
	o, ok := doc.(*jsonv.Object)
	if err != nil || !ok {
		return nil, 0, "", &MirrorBreak{Index: i, Reason: "unreadable", Detail: fmt.Sprintf("line %d is not a JSON object", i+1)}
	}
	seqV, _ := jsonv.ToFloat(o.Value("seq"))
	seq := int64(seqV)
	prev, _ := o.Value("prev_record_hash").(string)
	stored, _ := o.Value("record_hash").(string)
	payload := jsonv.Clone(o).(*jsonv.Object)
	for _, k := range []string{"seq", "prev_record_hash", "record_hash"} {
		payload.Delete(k)
	}
	brk := func(reason, detail string) (*jsonv.Object, int64, string, *MirrorBreak) {
		return o, seq, "", &MirrorBreak{Index: i, Seq: seq, Reason: reason, Detail: detail}
	}
	switch {
	case seq != records+1:
		return brk("seq_mismatch", fmt.Sprintf("expected seq %d", records+1))
	case prev != lastHash:
		return brk("prev_record_hash_mismatch", fmt.Sprintf("stored prev_record_hash=%q, expected %q", prev, lastHash))
	}
	want, err := chainHash(seq, prev, payload)
	if err != nil || want != stored {
		return brk("record_hash_mismatch", fmt.Sprintf("stored record_hash=%q, recomputed=%q", stored, want))
	}
	return o, seq, stored, nil
}

// makeDir creates dir (and parents) with mode 0700.
func makeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return nil
}
