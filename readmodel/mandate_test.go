package readmodel_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"cockpit/live"
	"cockpit/live/mandatefile"
	"cockpit/session"
)

// TestMandateCheckSeesEveryEdit: the screen's kept mandate check is answered again only for
// the same bytes and the same audit trail: an edit of the same length is TAMPERED at the next
// read, and putting the committed bytes back is verified again.
func TestMandateCheckSeesEveryEdit(t *testing.T) {
	s, err := session.Open(testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, ctx := s.Reader(), context.Background()
	if mc := b.MandateCheck(ctx); mc.State != live.MandateVerified {
		t.Fatalf("first check %q (%v), want verified", mc.State, mc.Err)
	}
	if mc := b.MandateCheck(ctx); mc.State != live.MandateVerified {
		t.Fatalf("second check %q, want verified", mc.State)
	}
	path := s.Runtime().Root.MandatePath(s.Key())
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(data, []byte(`"max_leverage": 1`), []byte(`"max_leverage": 9`), 1)
	if bytes.Equal(edited, data) || len(edited) != len(data) {
		t.Fatalf("no same-length edit made in:\n%s", data)
	}
	if err := os.WriteFile(path, edited, 0o600); err != nil {
		t.Fatal(err)
	}
	if mc := b.MandateCheck(ctx); mc.State != live.MandateTampered {
		t.Errorf("after a same-length edit: %q, want tampered", mc.State)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if mc := b.MandateCheck(ctx); mc.State != live.MandateVerified {
		t.Errorf("with the committed bytes back: %q, want verified", mc.State)
	}
}

// BenchmarkMandateCheck: the screen's once-a-second mandate check, kept (nothing changed)
// against a full read (parse and ledger) each time.
func BenchmarkMandateCheck(b *testing.B) {
	s, err := session.Open(testOptions(b.TempDir()))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	be, ctx := s.Reader(), context.Background()
	b.Run("kept", func(b *testing.B) {
		for b.Loop() {
			be.MandateCheck(ctx)
		}
	})
	b.Run("full", func(b *testing.B) {
		for b.Loop() {
			mandatefile.Read(ctx, s.Runtime().Root, s.Runtime().DB, s.Key())
		}
	})
}
