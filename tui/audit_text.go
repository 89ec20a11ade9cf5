package tui

import (
	"cockpit/readmodel"

	"regexp"

	"cockpit/live/money"
)

// dollarAmount is a dollar figure with more than two decimals in audit text ("$2055.49439243").
var dollarAmount = regexp.MustCompile(`\$(\d+\.\d{3,})`)

// roundDollars rounds every dollar figure in s to cents, the precision of a USD amount.
func roundDollars(s string) string {
	return dollarAmount.ReplaceAllStringFunc(s, func(m string) string {
		a, err := money.Parse(m[1:])
		if err != nil {
			return m
		}
		return "$" + a.Round(2).StringFixed(2)
	})
}

// auditWhat is an audit row's type with the tool it concerns ("tool_call get_quote").
func auditWhat(e readmodel.AuditRow) string {
	if e.Tool != "" {
		return e.Type + " " + e.Tool
	}
	return e.Type
}
