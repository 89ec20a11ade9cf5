package config

// TemplateMCP is the [brokers.mcp] table `cockpit init --broker mcp` writes or adds. As
// written it serves cockpit's own paper broker under Alpaca's tool names (a demo server).
const TemplateMCP = `
# An MCP broker: a broker's MCP server behind cockpit's gate (README "MCP brokers");
# [cockpit] broker = "mcp" trades through it. Its read tools reach the agent as they are;
# every order tool goes through the gate (mandate, halt, daily count, audit), and an order
# tool the profile cannot read is denied.
[brokers.mcp]
kind = "mcp"
mode = "paper"         # paper | live; live also needs ` + "`cockpit run --live`" + ` and shows a LIVE badge
timeout = "30s"        # per request to the server; 0 = 30s
profile = "alpaca"     # alpaca (the official Alpaca MCP server) | robinhood: tool names, order reading, reads
# Where the server is: exactly one of command (started, spoken to over stdio) and url.
command = "cockpit"    # the program; this one is cockpit's own demo server (a test aid, not a broker)
args = ["mcp-paper-server", "--profile", "alpaca"]
env_pass = []          # variables the command gets, by name, and nothing else, e.g.
                       # ["PATH", "HOME", "ALPACA_API_KEY", "ALPACA_SECRET_KEY"]
# url = "https://mcp.example.com/mcp"   # streamable HTTP: https, or http on loopback only
# token_env = "BROKER_MCP_TOKEN"        # bearer token read from this variable; never stored or logged
# A tool the profile does not name READ goes through the gate, whatever the server annotates
# (readOnlyHint is the server's word, not a permission). List here the server's tools you know
# only read, to let the agent call them without the gate (` + "`cockpit status`" + ` lists each tool's class):
# read_tools = ["get_market_summary"]
`
