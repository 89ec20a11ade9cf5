package live

// ToolClass is how the gate treats a tool: READ tools run plainly; WRITE and UNKNOWN tools go
// through the gate (UNKNOWN is treated as WRITE).
type ToolClass string

// Tool classes.
const (
	ClassRead    ToolClass = "read"
	ClassWrite   ToolClass = "write"
	ClassUnknown ToolClass = "unknown"
)

// IsWrite reports whether the class must pass the gate (WRITE or UNKNOWN).
func (c ToolClass) IsWrite() bool { return c != ClassRead }

// curatedTools maps broker → tool name → class. Names are exact and case-sensitive; there
// are no name heuristics. Only maps whose tool names are known facts are listed.
var curatedTools = map[string]map[string]ToolClass{
	"robinhood": {
		"get_accounts":         ClassRead,
		"get_portfolio":        ClassRead,
		"get_equity_positions": ClassRead,
		"get_equity_quotes":    ClassRead,
		"get_equity_orders":    ClassRead,
		"place_equity_order":   ClassWrite,
		"cancel_equity_order":  ClassWrite,
	},
	"ibkr": {
		"place_order": ClassWrite, "placeOrder": ClassWrite,
		"submit_order": ClassWrite, "submitOrder": ClassWrite,
		"cancel_order": ClassWrite, "cancelOrder": ClassWrite,
		"modify_order": ClassWrite, "modifyOrder": ClassWrite,
		"replace_order": ClassWrite, "replaceOrder": ClassWrite,
	},
	// cockpit's own tools (paper and the engine's broker tools).
	PaperBroker: {
		"get_quote":       ClassRead,
		"get_bars":        ClassRead,
		"get_positions":   ClassRead,
		"get_account":     ClassRead,
		"get_open_orders": ClassRead,
		"place_order":     ClassWrite,
		"cancel_order":    ClassWrite,
	},
}

// CuratedTools returns the curated map of a broker (nil when there is none). The map must
// not be modified.
func CuratedTools(broker string) map[string]ToolClass {
	key, err := NormalizeBroker(broker)
	if err != nil {
		return nil
	}
	return curatedTools[key]
}

// Classify is the reference's rule (registry wrapping): the curated map of the broker wins;
// otherwise an MCP readOnlyHint of exactly JSON true (READ) or false (WRITE) decides; otherwise
// UNKNOWN. readOnlyHint is the raw annotation value (nil when absent); anything but a bool is
// ignored, so a truthy 1 does not make a tool read-only. The hint is the server's word: cockpit
// lets it demote only tools it does not trade through; a broker server's tools are classified
// with ClassifyBrokerTool (DV17).
func Classify(curated map[string]ToolClass, tool string, readOnlyHint any) ToolClass {
	if c, ok := curated[tool]; ok {
		return c
	}
	if hint, ok := readOnlyHint.(bool); ok {
		if hint {
			return ClassRead
		}
		return ClassWrite
	}
	return ClassUnknown
}

// ClassifyBrokerTool decides the class of a broker server's tool (DV17): the curated map wins;
// a tool the operator lists in read (the broker table's read_tools) is READ; otherwise a
// readOnlyHint of exactly JSON false makes it WRITE and anything else UNKNOWN. A readOnlyHint
// of true never makes a broker server's tool READ: the MCP spec says a client must not trust
// annotations from an untrusted server, and a READ tool runs without the gate.
func ClassifyBrokerTool(curated map[string]ToolClass, read map[string]bool, tool string, readOnlyHint any) ToolClass {
	if c, ok := curated[tool]; ok {
		return c
	}
	if read[tool] {
		return ClassRead
	}
	if hint, ok := readOnlyHint.(bool); ok && !hint {
		return ClassWrite
	}
	return ClassUnknown
}
