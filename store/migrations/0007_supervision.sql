-- Issue 14 item 2: supervision as a role. The process that owns a broker account (the screen,
-- run --headless, serve-mcp) heartbeats in owner, publishes what only it can read from the
-- broker in live_state, and executes the operator actions other processes queue in commands.
CREATE TABLE owner (
	broker       TEXT PRIMARY KEY,
	pid          INTEGER NOT NULL,
	host         TEXT NOT NULL,
	kind         TEXT NOT NULL,     -- screen | headless | serve-mcp | serve-ssh
	agent        TEXT NOT NULL,     -- the agent's description
	session_id   TEXT NOT NULL,
	started_at   INTEGER NOT NULL,  -- unix nanos
	heartbeat_at INTEGER NOT NULL,
	watched_at   INTEGER NOT NULL DEFAULT 0 -- a supervisor's last look: the owner reads the broker for it only while watched
);
CREATE TABLE commands (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	created_at INTEGER NOT NULL,
	actor      TEXT NOT NULL,
	broker     TEXT NOT NULL,
	kind       TEXT NOT NULL,       -- cancel | close | flatten | block | unblock
	args       TEXT NOT NULL,       -- JSON object
	state      TEXT NOT NULL,       -- pending → running → done | failed
	claimed_by TEXT NOT NULL DEFAULT '',
	progress   TEXT NOT NULL DEFAULT '',
	result     TEXT NOT NULL DEFAULT '',
	updated_at INTEGER NOT NULL
);
CREATE INDEX commands_state ON commands (broker, state, id);
CREATE TABLE live_state (
	broker     TEXT PRIMARY KEY,
	version    INTEGER NOT NULL,
	body       TEXT NOT NULL,
	updated_at INTEGER NOT NULL
);
