// Package live is cockpit's domain: what an order is (OrderIntent, OrderRequest, Order and the
// Broker interface every adapter implements), what the operator allowed (Mandate with its hard
// caps, universe, consent and controls; MandateDraft; parsing and validation), the pure check
// of one against the other (CheckMandate, returning a Verdict with its Breach), the stable
// reason codes and Denial, the audit and journal records and the sinks that store them, the
// review types, and the runtime root's layout (Root, the sentinel names and TradingState).
//
// Instruments (issue 13): ClassifyInstrument and ParseOCC tell an equity, a crypto pair
// (BTC/USD, BTC-USD, or BTCUSD when the broker says crypto; quoted in USD, USDT or USDC) and an
// OCC option (root, YYMMDD, C/P, strike × 1000, strictly) apart; ShapeBreach, which the gate
// runs right after extraction, refuses an order of any other shape as a structural breach
// whose cause names the field. ImpliedNotional values a quantity (an option contract is 100
// shares at the quote's ValuationPrice); MultiLegIntent and PriceLegs value a spread leg by leg,
// its exposure the sum of the legs' absolute notionals. Adapters call: ExtractGeneric (cockpit's
// place_order) or ExtractAlpaca (the Alpaca MCP order tools) for the intent; ChildOrders or
// ChildOrdersFor to set Order.Children, which the day count adds (a bracket's legs);
// ReplaceFromArgs and gate.Gate.Replace (ReplaceRaises, ReplaceOrder) for replace_order_by_id (a raise is checked
// as a new order with the old one swapped out of the book, OrderRequest.Replaces naming it).
//
// It reads and writes no files, it only names them. The machinery lives in packages beside it,
// each importing live and none imported by it: gate (the order gate, operator path, flatten),
// halt (sentinel files, watcher, latch), mandatefile (mandate files, commit, adoption),
// counter (day count, submission lock), equitymark (the day's equity mark of a broker
// that keeps none), vibe (the Vibe-Trading mirror format), paper and
// toolbroker (broker adapters); redact, jsonv, money, pystr and atomicfile are leaf helpers.
package live
