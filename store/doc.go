// Package store keeps cockpit's durable state in SQLite: the hash-chained audit events, the
// order journal, the review queue and the paper broker's account. It implements interfaces
// declared in live and engine.
package store
