package fleet

// SetLoseAnswer sets the test seam of d: the answer of a landed write is dropped when lose
// returns true for its delta.
func SetLoseAnswer(d *Days, lose func(delta int) bool) { d.loseAnswer = lose }
