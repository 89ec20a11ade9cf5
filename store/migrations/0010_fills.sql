-- Issue 29 item 3: fills in the audit trail, and what `cockpit trades` and `cockpit pnl` read.
-- A fill is an event of type 'fill', hash-chained like every other. The tables below are derived
-- from the fill events in seq order (FIFO lots per broker and symbol), written in the same
-- transaction as the event and outside the chain (like events.notional): the day's trades and
-- the daily P&L are indexed reads whose cost follows the days asked for, not the history.

-- One row per fill event.
CREATE TABLE fills (
    seq             INTEGER PRIMARY KEY,          -- the fill event's seq
    ts              INTEGER NOT NULL,             -- the fill's time, unix nanoseconds UTC
    broker          TEXT NOT NULL,
    symbol          TEXT NOT NULL,
    side            TEXT NOT NULL,
    qty             TEXT NOT NULL,
    price           TEXT NOT NULL,                -- '' when the broker gave none
    fee             TEXT NOT NULL,
    order_id        TEXT NOT NULL DEFAULT '',
    client_order_id TEXT NOT NULL DEFAULT '',
    state           TEXT NOT NULL,                -- applied | duplicate | unpriced | unreadable
    realized        TEXT NOT NULL DEFAULT '0',    -- net P&L of the round trips this fill closed
    trips           TEXT NOT NULL DEFAULT '[]',   -- those round trips (JSON)
    pos_qty         TEXT NOT NULL DEFAULT '0',    -- the symbol's FIFO position after this fill
    pos_cost        TEXT NOT NULL DEFAULT '0',    -- Σ qty × price of its open lots
    pos_fee         TEXT NOT NULL DEFAULT '0'     -- the opening fees its open lots carry
);
CREATE INDEX fills_ts ON fills (ts);
CREATE INDEX fills_symbol_ts ON fills (broker, symbol, ts);

-- What the trail holds of each order's fills: a fill whose order has filled no further than
-- this is a repeat (a replayed update, or one seen again after a restart) and is not applied.
CREATE TABLE fill_orders (
    broker    TEXT NOT NULL,
    order_key TEXT NOT NULL,                      -- live.FillOrderKey: order id, else client:<id>
    qty       TEXT NOT NULL,
    notional  TEXT NOT NULL,
    PRIMARY KEY (broker, order_key)
) WITHOUT ROWID;

-- The open FIFO lots (all long or all short per broker and symbol), oldest first by seq.
CREATE TABLE fill_lots (
    broker TEXT NOT NULL,
    symbol TEXT NOT NULL,
    seq    INTEGER NOT NULL,                      -- the fill that opened the lot
    ts     INTEGER NOT NULL,
    qty    TEXT NOT NULL,                         -- signed
    price  TEXT NOT NULL,
    fee    TEXT NOT NULL,
    PRIMARY KEY (broker, symbol, seq)
) WITHOUT ROWID;

-- Every symbol ever filled per broker, with its FIFO position now.
CREATE TABLE fill_symbols (
    broker TEXT NOT NULL,
    symbol TEXT NOT NULL,
    qty    TEXT NOT NULL,
    cost   TEXT NOT NULL,
    fee    TEXT NOT NULL,
    PRIMARY KEY (broker, symbol)
) WITHOUT ROWID;
