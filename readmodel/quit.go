package readmodel

// QuitChoice is what the operator chose for resting orders when quitting.
type QuitChoice int

// Quit choices.
const (
	QuitNotYet QuitChoice = iota
	QuitHalt              // halt and cancel resting orders, then quit
	QuitLeave             // quit and leave resting orders at the broker
)

// WarnNote starts a start-up note that is a warning (a tampered or unverified mandate, DV13):
// the screen shows it as a critical alert, pinned with the halts and denials.
const WarnNote = "warning: "
