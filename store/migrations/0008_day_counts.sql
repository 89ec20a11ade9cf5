-- The day's order count kept per broker and UTC day (issue 15): the gate read it by summing
-- every journal row of the day before each order, a cost that grew with the day's orders. The
-- triggers keep journal_day_counts equal to that sum in the same transaction as every journal
-- write, whoever writes it (the gate, reconciliation, another process).
--
-- A row's weight: 0 unless its state may hold an order at the broker (submitting, accepted,
-- indeterminate: live.JournalMayHold) and it is not the operator's reduce-only order; else 1
-- plus the orders an accepted one made the broker create (a bracket's legs, {"children":N} in
-- its outcome detail). Its day: created_at (Unix ns, UTC) floored to 86,400 s.
--
-- The sum must stay an exact integer: SQLite computes an integer sum that overflows in floating
-- point, and a float taken back out (the row refused, moved or deleted) loses the day's other
-- orders (5 orders, one with {"children":1e999} then refused, left 0). So a row's legs are
-- capped at 10^9 (still far over any daily limit), and {"children":null} counts no legs rather
-- than making the weight NULL (which the NOT NULL on n refused, failing the journal write or
-- this migration). A created_at that is not a whole number (a REAL written by hand) is floored
-- through CAST, so its day is an integer the reader can ask for.
--
-- The day and the weight are written once, as generated columns of the journal (computed when
-- read, stored nowhere), and the backfill and the triggers read them.
ALTER TABLE order_journal ADD COLUMN reduce_only INTEGER NOT NULL DEFAULT 0;

ALTER TABLE order_journal ADD COLUMN count_day INTEGER GENERATED ALWAYS AS (
    CASE WHEN created_at >= 0 THEN CAST(created_at AS INTEGER) / 86400000000000
         ELSE (CAST(created_at AS INTEGER) - (CAST(created_at AS INTEGER) > created_at) + 1) / 86400000000000 - 1 END) VIRTUAL;

ALTER TABLE order_journal ADD COLUMN count_weight INTEGER GENERATED ALWAYS AS (
    CASE WHEN state IN ('submitting', 'accepted', 'indeterminate') AND reduce_only = 0
        THEN 1 + CASE WHEN detail LIKE '{"children":%' AND json_valid(detail)
                      THEN min(max(0, COALESCE(CAST(json_extract(detail, '$.children') AS INTEGER), 0)), 1000000000) ELSE 0 END
        ELSE 0 END) VIRTUAL;

-- Backfill: the rows the old query left out, as it found them; the store then decodes each
-- one as it did (migration hook 8) and clears the flag where the request does not decode as
-- reduce-only.
UPDATE order_journal SET reduce_only = 1
 WHERE instr(request, '"ReduceOnly":true') > 0 AND json_valid(request) AND json_type(request, '$.ReduceOnly') = 'true';

CREATE TABLE journal_day_counts (
    broker TEXT    NOT NULL,
    day    INTEGER NOT NULL,  -- UTC day number: floor(created_at / 86400e9)
    n      INTEGER NOT NULL,
    PRIMARY KEY (broker, day)
) WITHOUT ROWID;

INSERT INTO journal_day_counts (broker, day, n)
SELECT broker, count_day, SUM(count_weight) FROM order_journal GROUP BY 1, 2;

CREATE TRIGGER journal_day_counts_insert AFTER INSERT ON order_journal
BEGIN
    INSERT INTO journal_day_counts (broker, day, n) VALUES (NEW.broker, NEW.count_day, NEW.count_weight)
    ON CONFLICT (broker, day) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER journal_day_counts_update AFTER UPDATE OF broker, state, detail, created_at, reduce_only ON order_journal
BEGIN
    INSERT INTO journal_day_counts (broker, day, n) VALUES (OLD.broker, OLD.count_day, -OLD.count_weight)
    ON CONFLICT (broker, day) DO UPDATE SET n = n + excluded.n;
    INSERT INTO journal_day_counts (broker, day, n) VALUES (NEW.broker, NEW.count_day, NEW.count_weight)
    ON CONFLICT (broker, day) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER journal_day_counts_delete AFTER DELETE ON order_journal
BEGIN
    INSERT INTO journal_day_counts (broker, day, n) VALUES (OLD.broker, OLD.count_day, -OLD.count_weight)
    ON CONFLICT (broker, day) DO UPDATE SET n = n + excluded.n;
END;
