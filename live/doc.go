// Package live is cockpit's domain: what an order is (OrderIntent, OrderRequest, Order and the
// Broker interface every adapter implements), what the operator allowed (Mandate with its hard
// caps, universe, consent and controls; MandateDraft; parsing and validation), the pure check
// of one against the other (CheckMandate, returning a Verdict with its Breach), the stable
// reason codes and Denial, the audit and journal records and the sinks that store them, the
// review types, and the runtime root's layout (Root, the sentinel names and TradingState).
//
// It reads and writes no files, it only names them. The machinery lives in packages beside it,
// each importing live and none imported by it: gate (the order gate, operator path, flatten),
// halt (sentinel files, watcher, latch), mandatefile (mandate files, commit, adoption),
// counter (day count, submission lock), vibe (the Vibe-Trading mirror format), paper and
// toolbroker (broker adapters); redact, jsonv, money, pystr and atomicfile are leaf helpers.
package live
