package config

import (
	"strings"
	"testing"
)

func TestBrokerTables(t *testing.T) {
	tests := []struct {
		name, toml, wantErr string
	}{
		{"paper needs no table", `[cockpit]
broker = "paper"`, ""},
		{"a real broker needs its table", `[cockpit]
broker = "alpaca"`, `cockpit.broker = "alpaca": no [brokers.alpaca] table`},
		{"kind is named", `[cockpit]
broker = "alpaca"
[brokers.alpaca]
kind = "alpacca"
mode = "paper"`, `brokers.alpaca.kind = "alpacca"`},
		{"mode is named", `[cockpit]
broker = "alpaca"
[brokers.alpaca]
kind = "alpaca"`, `brokers.alpaca.mode = "": want paper or live`},
		{"paper is not a table", `[brokers.paper]
kind = "alpaca"
mode = "paper"`, `"paper" is the embedded paper broker`},
		{"upper-case key", `[brokers.Alpaca]
kind = "alpaca"
mode = "paper"`, `a broker key is lower case`},
		{"negative timeout", `[brokers.alpaca]
kind = "alpaca"
mode = "paper"
timeout = "-1s"`, `brokers.alpaca.timeout = -1s`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.toml), Default())
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Parse: got %v, want no error", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Parse: got %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}
