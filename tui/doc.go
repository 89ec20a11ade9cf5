// Package tui is the Bubble Tea program: one root model, small components, and the key map
// that keeps halt one keystroke away.
package tui
