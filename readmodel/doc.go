// Package readmodel is the one read model of a runtime root: what every window (the owner's
// screen, a supervising screen, SSH, `attach --vibe`, `cockpit status`) shows of one broker
// account — sentinels and latches, the verified mandate, the day's count, reviews, positions
// and orders, P&L from the day's baseline, alerts and the audit tail — and the Reader that
// builds it. The screen and the session both import it; neither owns it.
package readmodel
