// Package vibe is the Vibe-Trading mirror format: Mirror is an audit sink that also writes every
// record, redacted, as Vibe-Trading does (live/audit.jsonl, and live/audit_chain.jsonl with each
// record hash-chained to the one before), so a Vibe-Trading install sharing the runtime root
// sees cockpit's decisions; VerifyChain checks such a chain. It imports the domain package live
// for the record and root types; live does not import it.
package vibe
