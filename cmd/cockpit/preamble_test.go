package main

import (
	"strings"
	"testing"
)

// TestPreambleBroker pins what the shared preamble does with --broker: a given broker is
// normalised, a bad one is a usage error, an explicitly empty one is one only when the flag
// has a default (a required broker is the command's to check).
func TestPreambleBroker(t *testing.T) {
	tests := []struct {
		name, def string
		args      []string
		code      int
		ok        bool
		key       string
	}{
		{"default", "paper", nil, exitOK, true, "paper"},
		{"given", "paper", []string{"--broker", "Paper"}, exitOK, true, "paper"},
		{"bad", "paper", []string{"--broker", "../x"}, exitUsage, false, ""},
		{"emptied default", "paper", []string{"--broker", ""}, exitUsage, false, ""},
		{"required, not given", "", nil, exitOK, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewApp(strings.NewReader(""), &syncBuffer{}, &syncBuffer{})
			p, _ := a.preamble("test")
			p.withBroker(tt.def, "broker")
			code, ok := p.parse(tt.args, 0)
			if code != tt.code || ok != tt.ok || p.key != tt.key {
				t.Errorf("parse(%q) = %d %v key %q, want %d %v key %q", tt.args, code, ok, p.key, tt.code, tt.ok, tt.key)
			}
		})
	}
}
