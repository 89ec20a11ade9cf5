package fleet_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"cockpit/fleet"
)

// auditLimits reads the audit stream's retention straight from the server.
func auditLimits(t *testing.T, url string) (time.Duration, int64) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(context.Background(), fleet.AuditStream)
	if err != nil {
		t.Fatal(err)
	}
	c := s.CachedInfo().Config
	if c.Discard != jetstream.DiscardOld {
		t.Errorf("discard policy %v, want old records dropped (new ones always taken)", c.Discard)
	}
	return c.MaxAge, c.MaxBytes
}

// TestAuditStreamRetention: the fleet's audit stream is bounded by age and size — the default,
// or the host's [fleet] audit_max_age / audit_max_bytes — and a stream an older cockpit made
// without limits gets them.
func TestAuditStreamRetention(t *testing.T) {
	tests := []struct {
		name      string
		unbounded bool // the stream exists already, without limits
		ret       fleet.AuditRetention
		wantAge   time.Duration
		wantBytes int64
	}{
		{"default", false, fleet.AuditRetention{}, fleet.DefaultAuditMaxAge, fleet.DefaultAuditMaxBytes},
		{"configured", false, fleet.AuditRetention{MaxAge: 48 * time.Hour, MaxBytes: 64 << 20}, 48 * time.Hour, 64 << 20},
		{"older unbounded stream", true, fleet.AuditRetention{MaxAge: 72 * time.Hour}, 72 * time.Hour, fleet.DefaultAuditMaxBytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ns := serve(t)
			ctx := context.Background()
			if tt.unbounded {
				nc, err := nats.Connect(ns.ClientURL())
				if err != nil {
					t.Fatal(err)
				}
				js, _ := jetstream.New(nc)
				if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: fleet.AuditStream, Subjects: []string{"cockpit.audit.>"},
					Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute}); err != nil {
					t.Fatal(err)
				}
				nc.Close()
			}
			f, err := fleet.Connect(fleet.Options{URL: ns.ClientURL(), Host: "h1", Audit: tt.ret})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.PublishAudit(ctx, fleet.AuditEntry{Host: "h1", Hash: "abc", Record: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
			age, size := auditLimits(t, ns.ClientURL())
			if age != tt.wantAge || size != tt.wantBytes {
				t.Errorf("stream keeps max_age %v, max_bytes %d; want %v, %d", age, size, tt.wantAge, tt.wantBytes)
			}
		})
	}
}
