// Package fleet shares cockpit's kill switch and day count across hosts on NATS JetStream:
// a halt bucket every host mirrors into its local sentinel files, a day-count bucket changed
// only by compare-and-set (live.DayReserver), a heartbeat bucket with a TTL for the fleet
// view, and an audit stream deduplicated by each record's hash. Serve starts an embedded
// JetStream server for a one-host fleet, a demo or tests. The local files stay the truth
// on each host; live does not import this package.
package fleet
