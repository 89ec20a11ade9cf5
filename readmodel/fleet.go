package readmodel

import "time"

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
