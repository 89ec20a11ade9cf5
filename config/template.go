package config

// Template is the commented config.toml that `cockpit init` writes. Every value in it is the
// default, so a fresh file changes nothing until the operator edits it.
const Template = `# cockpit configuration. Every value shown is the default.
# Money is written as a quoted decimal ("100000.00"); durations as "2s", "1m30s".
# An unknown key is an error that names it.

[cockpit]
broker = "paper"       # "paper" is the embedded paper broker
agent = "strategy"     # strategy | replay | llm | none
approvals = "tui"      # tui: a human answers breaches | none: no approver, breaches are denied
on_quit = ""           # halt: quitting trips HALT and cancels resting orders | leave: they stay
                       # empty: halt for live brokers, leave for the paper broker

[paper]
seed = 1
cash = "100000"
time_scale = 30.0      # simulated seconds per real second
replay = ""            # a CSV of bars to replay, or "sample"; empty = seeded random walk

[audit]
vibe_mirror = false    # also write live/audit.jsonl and live/audit_chain.jsonl (Vibe-Trading's format)

# The agent policy: layers global → profile → agent → group → tool. A layer can only narrow.
# An allow list set to [] allows nothing; a limit of 0 means zero; an unset field says nothing.
[policy]
profile = ""           # the profile layer in force; empty = "paper" for the paper broker, else "live"

[policy.global]
autonomy = "full"      # read_only | supervised (every order waits for a human) | full
require_sandbox = true
allowed_commands = []  # argv[0] values the shell tool may run (the shell is off unless enabled)
forbidden_paths = ["~/.ssh", "~/.aws", "~/.config", "/etc/shadow"]
# allow_tools = ["get_quote", "place_order"]
# deny_tools = []
# workspace_restrictions = ["~/cockpit-workspace"]
# [policy.global.rate_limits]
# requests_per_minute = 60
# requests_per_hour = 1000
# max_concurrent = 2
# [policy.global.cost_limits]
# max_per_request_usd = "0.05"
# max_per_hour_usd = "1.00"
# max_per_day_usd = "5.00"

[policy.profiles.paper]
escalate_on_untrusted_input = false

[policy.profiles.live]
autonomy = "supervised"
escalate_on_untrusted_input = true

# [policy.agents.llm]
# autonomy = "supervised"
# [policy.groups.trading]
# rate_limits = { requests_per_minute = 10 }
# [policy.tool_groups]
# trading = ["place_order", "cancel_order"]
# [policy.tools.place_order]
# rate_limits = { requests_per_minute = 6 }

[agents.strategy]
seed = 7
symbols = ["AAPL", "MSFT", "NVDA", "SPY", "TSLA", "GME"]
interval = "2s"
notional = "2500"

[agents.replay]
script = ""            # a JSONL file of tool calls (cockpit audit export --format replay writes one)
speed = 1.0            # 1 = the script's timing; 0 = as fast as possible

[agents.llm]
base_url = "https://api.openai.com/v1/"
model = "gpt-4o-mini"
api_key_env = "OPENAI_API_KEY"   # the key is read from this environment variable, never stored
timeout = "1m0s"
max_output_tokens = 1024
interval = "30s"
# USD per million tokens; cockpit will not call a model it cannot price. Add a table per model you use.
[agents.llm.prices.gpt-4o-mini]
input_per_mtok = "0.15"
output_per_mtok = "0.60"

[agents.plugin]        # a WASM strategy plugin (run --agent plugin); its first run prints both pins
# file = "meanrev.wasm"  # relative to this root; the manifest sits beside it (meanrev.plugin.toml)
# sha256 = "…"           # the module's SHA-256
# manifest_sha256 = "…"  # the manifest's SHA-256: its grants are what the plugin may do
max_memory_pages = 1024  # ceilings on the manifest's asks: 64 MiB of memory (at most 65536 pages)
max_tick_budget = "1s"   # and 1s of its own time a tick (at most 10s)

[tools.news]
source = "sample"      # an RSS/Atom URL, a directory of files, or "sample"; empty = off

[tools.web]
enabled = false
policy = "strict"      # strict: resolved addresses are checked and pinned | lexical
max_bytes = 1048576
timeout = "15s"

[tools.files]
enabled = false
# Roots may not overlap the runtime root (its uploads, imports and runs are the agent's):
# cockpit's database, config, log and live/ tree stay out of every agent tool's reach.
read_roots = []
write_roots = []
run_roots = []

[tools.shell]
enabled = false
backend = "auto"       # auto picks docker > bwrap > firejail > landlock > none, probing each
timeout = "2m0s"
max_output = 50000

[tui]
theme = "auto"         # auto | dark | light | high-contrast | no-color (NO_COLOR is honoured)
mouse = true           # click a pane or a row, wheel to scroll (never trades); false or --no-mouse: off
# [tui.keys]
# approve = "a"

# [ssh]                  # cockpit serve-ssh
# idle_timeout = "15m"   # close a session with no keypress for this long
` + TemplateFleet + TemplateNotify + TemplateMetrics
