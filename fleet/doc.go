// Package fleet shares cockpit's kill switch and day count across hosts on NATS JetStream:
// a halt bucket every host mirrors into its local sentinel files, a day-count bucket changed
// only by compare-and-set (live.DayReserver), a heartbeat bucket with a TTL for the fleet
// view, a peer list, and an audit stream carrying each host's hash chain. A peer is a host
// with an identity: an Authority (NATS operator mode) issues each host credentials whose
// permissions the server enforces, and the host's key signs its halts, resumes, counts and
// audit entries, which the other hosts check against the peer list before they act on them.
// Serve starts an embedded JetStream server for a one-host fleet, a demo or tests. The local
// files stay the truth on each host; live does not import this package.
package fleet
