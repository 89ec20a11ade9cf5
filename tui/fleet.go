package tui

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"cockpit/live/termsafe"
)

// FleetView is the fleet on screen (issue 16): this host's link and every host's heartbeat.
type FleetView struct {
	Host  string
	OK    bool   // connected and the last call worked
	Why   string // "fleet ok", or what is wrong
	Hosts []FleetHost
	// Alerts are the newest things the fleet refused: a resume nobody known signed, a day
	// count lowered without a signed release.
	Alerts []string
}

// FleetHost is one host's heartbeat.
type FleetHost struct {
	Name, State, Broker string
	Orders              int
	LastEvent           string
	Lag                 time.Duration
}

// fleetSeg is the status bar's fleet segment ("" without a fleet) and its priority: a down
// fleet is kept on a narrow line like the orders, a healthy one goes early.
func fleetSeg(c *Common) (string, int) {
	f := c.Data.Snap.Fleet
	if f == nil {
		return "", 0
	}
	if !f.OK {
		return c.Styles.Critical.Render("fleet DOWN"), 1
	}
	return fmt.Sprintf("fleet %d hosts", len(f.Hosts)), 3
}

// fleetAlert raises an alert while the fleet is down (new orders are denied), and one for
// each thing the fleet refused.
func (d *Data) fleetAlert(s Snapshot) {
	if s.Fleet == nil {
		return
	}
	for _, a := range s.Fleet.Alerts {
		d.once("fleet:"+a, 10*time.Minute, Alert{Level: levelCrit, Kind: "FLEET", Source: s.Fleet.Host, Text: a, Untrusted: true})
	}
	if !s.Fleet.OK {
		d.once("fleet", 30*time.Second, Alert{Level: levelCrit, Kind: "FLEET", Source: s.Fleet.Host,
			Text: "orders DENY fleet_unavailable: " + s.Fleet.Why + " (halts and flatten work locally)"})
	}
}

// fleetModal lists the fleet's hosts (palette: fleet).
type fleetModal struct{ c *Common }

func (m *fleetModal) Typing() bool { return false }

func (m *fleetModal) View(w, h int) string {
	f := m.c.Data.Snap.Fleet
	if f == nil {
		return frame(m.c, "Fleet", []string{"No fleet is configured ([fleet] url in config.toml).", "", "esc close"}, 70, w, h)
	}
	lines := []string{termsafe.Text(fmt.Sprintf("this host: %s — %s", f.Host, f.Why)), "",
		fmt.Sprintf("%-16s %-12s %-10s %6s  %-18s %s", "HOST", "STATE", "BROKER", "ORDERS", "LAST EVENT", "LAG")}
	for _, h := range f.Hosts {
		lines = append(lines, fmt.Sprintf("%-16s %-12s %-10s %6d  %-18s %s", untrusted(h.Name, 16), untrusted(h.State, 12),
			untrusted(h.Broker, 10), h.Orders, untrusted(h.LastEvent, 18), h.Lag.Round(time.Millisecond)))
	}
	if len(f.Hosts) == 0 {
		lines = append(lines, "(no heartbeats)")
	}
	return frame(m.c, "Fleet", append(lines, "", "esc close"), 90, w, h)
}

func (m *fleetModal) Update(msg tea.Msg) (tea.Msg, tea.Cmd) {
	if isNo(m.c, msg) {
		return closeMsg{}, nil
	}
	return nil, nil
}
