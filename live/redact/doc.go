// Package redact keeps secrets out of everything cockpit stores, logs or shows: ForStorage
// scrubs tool arguments and results before they reach the audit, Secrets and Text
// scrub free text (key=value pairs, bearer and basic credentials, PEM blocks, URL userinfo,
// base64/URL-encoded copies), and Handler wraps a slog handler so log records pass
// through the same filters. It is a leaf: it imports nothing from cockpit but the jsonv and
// pystr helpers, so the domain package live can use it without a cycle.
package redact
