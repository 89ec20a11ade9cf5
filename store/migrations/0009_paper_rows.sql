-- The paper account, saved change by change (issue 32): the account's header stays in
-- paper_accounts.state (cash, the order sequence, the market's seed and start, the day mark),
-- and each order and position is a row of its own. A change upserts the header and the rows it
-- touched, so saving costs the same at 100,000 orders as at the first; a restart loads the
-- header, the open orders (paper_orders_open) and the positions.
CREATE TABLE paper_orders (
    broker          TEXT    NOT NULL,
    id              TEXT    NOT NULL,
    client_order_id TEXT    NOT NULL DEFAULT '',
    open            INTEGER NOT NULL,  -- 1 while it may fill or be cancelled
    body            TEXT    NOT NULL,  -- the order, JSON
    PRIMARY KEY (broker, id)
) WITHOUT ROWID;
CREATE INDEX paper_orders_client ON paper_orders (broker, client_order_id) WHERE client_order_id <> '';
CREATE INDEX paper_orders_open ON paper_orders (broker, id) WHERE open = 1;

CREATE TABLE paper_positions (
    broker TEXT NOT NULL,
    symbol TEXT NOT NULL,
    body   TEXT NOT NULL,  -- the position, JSON
    PRIMARY KEY (broker, symbol)
) WITHOUT ROWID;

-- The accounts saved whole before this migration are split by the store (migration hook 9).
