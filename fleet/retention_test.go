package fleet_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"cockpit/fleet"
)

// auditLimits reads the audit stream's retention straight from the server over nc.
func auditLimits(t *testing.T, nc *nats.Conn) (time.Duration, int64) {
	t.Helper()
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
// or `fleet serve`'s [fleet] audit_max_age / audit_max_bytes, which it provisions (a host with
// credentials may not change the stream), and a stream an older fleet made without limits gets
// them at the next provisioning.
func TestAuditStreamRetention(t *testing.T) {
	tf := serve(t)
	nc, _ := tf.raw(t, "h1")
	if age, size := auditLimits(t, nc); age != fleet.DefaultAuditMaxAge || size != fleet.DefaultAuditMaxBytes {
		t.Errorf("default: stream keeps max_age %v, max_bytes %d; want %v, %d", age, size, fleet.DefaultAuditMaxAge, fleet.DefaultAuditMaxBytes)
	}
	ret := fleet.AuditRetention{MaxAge: 48 * time.Hour, MaxBytes: 64 << 20}
	if err := fleet.Provision(tf.nodes[0], tf.auth, 1, nil, ret); err != nil {
		t.Fatal(err)
	}
	if age, size := auditLimits(t, nc); age != ret.MaxAge || size != ret.MaxBytes {
		t.Errorf("configured: stream keeps max_age %v, max_bytes %d; want %v, %d", age, size, ret.MaxAge, ret.MaxBytes)
	}
}

// TestOpenAuditStreamRetention: on an open demo server (no authority) a host makes the stream
// with its retention, and gives an older unbounded stream its limits.
func TestOpenAuditStreamRetention(t *testing.T) {
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
			ns, err := fleet.Serve(fleet.ServeOptions{Port: -1, StoreDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer ns.Shutdown()
			ctx := context.Background()
			nc, err := nats.Connect(ns.ClientURL())
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			if tt.unbounded {
				js, _ := jetstream.New(nc)
				_ = js.DeleteStream(ctx, fleet.AuditStream) // the server made one at start
				if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: fleet.AuditStream, Subjects: []string{"cockpit.audit.>"},
					Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute}); err != nil {
					t.Fatal(err)
				}
			}
			f, err := fleet.Connect(fleet.Options{URL: ns.ClientURL(), Host: "h1", Audit: tt.ret})
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.PublishAudit(ctx, fleet.AuditEntry{Host: "h1", Seq: 1, Hash: "abc", Event: []byte(`{}`)}); err != nil {
				t.Fatal(err)
			}
			age, size := auditLimits(t, nc)
			if age != tt.wantAge || size != tt.wantBytes {
				t.Errorf("stream keeps max_age %v, max_bytes %d; want %v, %d", age, size, tt.wantAge, tt.wantBytes)
			}
		})
	}
}

// TestRetainedTellsAgingFromAPurge: a stream whose first messages are gone is explained by its
// retention when it is near its size limit or its oldest message near its age limit; a small,
// young stream that lost its start was purged.
func TestRetainedTellsAgingFromAPurge(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	c := jetstream.StreamConfig{MaxAge: 90 * 24 * time.Hour, MaxBytes: 1 << 30}
	cases := []struct {
		name string
		st   jetstream.StreamState
		want bool
	}{
		{"aged out", jetstream.StreamState{FirstSeq: 500, Bytes: 1 << 20, FirstTime: now.Add(-89 * 24 * time.Hour)}, true},
		{"full", jetstream.StreamState{FirstSeq: 500, Bytes: 1000 << 20, FirstTime: now.Add(-time.Hour)}, true},
		{"purged", jetstream.StreamState{FirstSeq: 500, Bytes: 1 << 20, FirstTime: now.Add(-time.Hour)}, false},
		{"no limits", jetstream.StreamState{FirstSeq: 500, Bytes: 1 << 20, FirstTime: now.Add(-400 * 24 * time.Hour)}, false},
	}
	for _, tc := range cases {
		cfg := c
		if tc.name == "no limits" {
			cfg = jetstream.StreamConfig{}
		}
		if got := fleet.Retained(cfg, tc.st, now); got != tc.want {
			t.Errorf("%s: retained = %v, want %v", tc.name, got, tc.want)
		}
	}
}
