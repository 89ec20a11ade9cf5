package readmodel

import "cockpit/live"

// BrokerTool is one of the broker server's own tools as the agent is offered it (DV17).
type BrokerTool struct {
	Name   string         // as the server names it: outside text
	Class  live.ToolClass // read: the agent calls it without the gate; write and unknown: through the gate
	Hinted bool           // the server annotates it readOnlyHint: true (a hint, not a permission)
}
