package tui

// Action names an operator action whose result comes back as ActionDoneMsg.
type Action uint8

// The operator actions.
const (
	ActHalt       Action = iota + 1 // write the global HALT sentinel
	ActHaltBroker                   // write this broker's HALT sentinel
	ActResume                       // remove the HALT sentinel
	ActReduce                       // write the REDUCE_ONLY sentinel
	ActApprove                      // approve a review item once
	ActDeny                         // deny a review item
	ActCancel                       // cancel a resting order (ID "all" for every one)
	ActClose                        // close a position
	ActExport                       // export the audit trail
	ActBlock                        // close a position and block its symbol
	ActUnblock                      // take a symbol off the block list
)

// actionWords are the words the footer and alerts use for each action.
var actionWords = [...]string{
	ActHalt: "halt", ActHaltBroker: "halt broker", ActResume: "resume", ActReduce: "reduce",
	ActApprove: "approve", ActDeny: "deny", ActCancel: "cancel", ActClose: "close", ActExport: "export",
	ActBlock: "close and block", ActUnblock: "unblock",
}

// String is the action's word, as the footer shows it.
func (a Action) String() string {
	if int(a) < len(actionWords) && actionWords[a] != "" {
		return actionWords[a]
	}
	return "action"
}
