-- Sessions: one row per cockpit process that opened the store for a run.
CREATE TABLE sessions (
    id         TEXT PRIMARY KEY,
    started_at INTEGER NOT NULL,          -- unix nanoseconds, UTC
    mode       TEXT NOT NULL,             -- paper | live
    broker     TEXT NOT NULL,
    agent      TEXT NOT NULL DEFAULT '',
    pid        INTEGER NOT NULL DEFAULT 0,
    ended_at   INTEGER
);

-- The audit trail: append-only, hash-chained. Corrections are new rows.
CREATE TABLE events (
    seq             INTEGER PRIMARY KEY,
    ts              INTEGER NOT NULL,     -- unix nanoseconds, UTC
    session_id      TEXT NOT NULL DEFAULT '',
    actor_kind      TEXT NOT NULL,        -- agent | operator | system
    actor_id        TEXT NOT NULL DEFAULT '',
    turn_id         TEXT NOT NULL DEFAULT '',
    tool_call_id    TEXT NOT NULL DEFAULT '',
    type            TEXT NOT NULL,
    outcome         TEXT NOT NULL DEFAULT '',
    reason          TEXT NOT NULL DEFAULT '',
    broker          TEXT NOT NULL DEFAULT '',
    tool            TEXT NOT NULL DEFAULT '',
    order_id        TEXT NOT NULL DEFAULT '',
    client_order_id TEXT NOT NULL DEFAULT '',
    approval_id     TEXT NOT NULL DEFAULT '',
    summary         TEXT NOT NULL DEFAULT '',
    payload         TEXT NOT NULL,        -- redacted JSON, sorted keys
    prev_hash       TEXT NOT NULL,
    hash            TEXT NOT NULL UNIQUE
);
CREATE INDEX events_ts ON events (ts);
CREATE INDEX events_type ON events (type, seq);
CREATE INDEX events_order ON events (order_id, seq) WHERE order_id <> '';
CREATE INDEX events_client_order ON events (client_order_id, seq) WHERE client_order_id <> '';
CREATE INDEX events_reason ON events (reason, seq) WHERE reason <> '';
CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;

-- The write-ahead order journal: intent before the broker call, outcome after.
CREATE TABLE order_journal (
    client_order_id TEXT PRIMARY KEY,
    broker          TEXT NOT NULL,
    actor_kind      TEXT NOT NULL DEFAULT '',
    actor_id        TEXT NOT NULL DEFAULT '',
    session_id      TEXT NOT NULL DEFAULT '',
    request         TEXT NOT NULL,
    state           TEXT NOT NULL,        -- submitting | accepted | rejected | indeterminate
    order_id        TEXT NOT NULL DEFAULT '',
    detail          TEXT NOT NULL DEFAULT '',
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);
CREATE INDEX order_journal_state ON order_journal (state, broker);

-- The review queue: breaches and supervised orders waiting for a human.
CREATE TABLE approvals (
    id           TEXT PRIMARY KEY,
    session_id   TEXT NOT NULL DEFAULT '',
    broker       TEXT NOT NULL,
    order_json   TEXT NOT NULL,           -- the exact order, canonical JSON
    digest       TEXT NOT NULL,           -- sha256 of order_json
    why          TEXT NOT NULL,           -- supervised | breach
    limit_name   TEXT NOT NULL DEFAULT '',
    limit_value  TEXT NOT NULL DEFAULT '',
    attempted    TEXT NOT NULL DEFAULT '',
    detail       TEXT NOT NULL DEFAULT '',
    agent_reason TEXT NOT NULL DEFAULT '',
    created_at   INTEGER NOT NULL,
    deadline     INTEGER NOT NULL,
    state        TEXT NOT NULL,           -- pending | approved | denied | timed_out | voided
    resolved_by  TEXT NOT NULL DEFAULT '',
    resolved_at  INTEGER,
    resolution   TEXT NOT NULL DEFAULT '',
    consumed     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX approvals_state ON approvals (state, deadline);

-- The paper broker's account, one JSON document per broker key.
CREATE TABLE paper_accounts (
    broker     TEXT PRIMARY KEY,
    state      TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);
