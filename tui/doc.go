// Package tui is the Bubble Tea program: a root model that composes small components and
// keeps halt one keystroke away.
//
// Every component holds the shared *Common (size, styles, keys, clock, privacy and Data,
// the state on screen). The root folds snapshots and engine events into Data (data.go),
// hands keys to the open modal or the focused pane, and acts on their answers (answers.go):
// panes (pane*.go, headroom.go) and modals (modal*.go, flatten.go, form.go) never touch
// the root or the backend. The status bar and the footer (bubbles/help) draw the edges;
// text fields are bubbles/textinput (textfield.go); the details drawer is a viewport.
package tui
