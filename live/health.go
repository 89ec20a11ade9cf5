package live

import "time"

// BrokerHealth is a connector's view of its link to the broker, for the status bar and
// `cockpit status`.
type BrokerHealth struct {
	Connected   bool          // the last request reached the broker
	Mode        string        // paper | live
	LastLatency time.Duration // round trip of the last request
	LastError   string        // the last failure, redacted; "" when the last request succeeded
	Checked     time.Time     // when the last request ended
}

// HealthReporter is implemented by connectors that can say how their link is.
type HealthReporter interface {
	Health() BrokerHealth
}
