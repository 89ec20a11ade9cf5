-- The day's order count kept per broker and UTC day (issue 15): the gate read it by summing
-- every journal row of the day before each order, a cost that grew with the day's orders. The
-- triggers keep journal_day_counts equal to that sum in the same transaction as every journal
-- write, whoever writes it (the gate, reconciliation, another process).
--
-- A row's weight: 0 unless its state may hold an order at the broker (submitting, accepted,
-- indeterminate: live.JournalMayHold) and it is not the operator's reduce-only order; else 1
-- plus the orders an accepted one made the broker create (a bracket's legs, {"children":N} in
-- its outcome detail). Its day: created_at (Unix ns, UTC) floored to 86,400 s.
ALTER TABLE order_journal ADD COLUMN reduce_only INTEGER NOT NULL DEFAULT 0;

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
SELECT broker,
       CASE WHEN created_at >= 0 THEN created_at / 86400000000000 ELSE (created_at + 1) / 86400000000000 - 1 END,
       SUM(CASE WHEN state IN ('submitting', 'accepted', 'indeterminate') AND reduce_only = 0
           THEN 1 + CASE WHEN detail LIKE '{"children":%' AND json_valid(detail)
                         THEN max(0, CAST(json_extract(detail, '$.children') AS INTEGER)) ELSE 0 END
           ELSE 0 END)
  FROM order_journal GROUP BY 1, 2;

CREATE TRIGGER journal_day_counts_insert AFTER INSERT ON order_journal
BEGIN
    INSERT INTO journal_day_counts (broker, day, n) VALUES (NEW.broker,
        CASE WHEN NEW.created_at >= 0 THEN NEW.created_at / 86400000000000 ELSE (NEW.created_at + 1) / 86400000000000 - 1 END,
        CASE WHEN NEW.state IN ('submitting', 'accepted', 'indeterminate') AND NEW.reduce_only = 0
            THEN 1 + CASE WHEN NEW.detail LIKE '{"children":%' AND json_valid(NEW.detail)
                          THEN max(0, CAST(json_extract(NEW.detail, '$.children') AS INTEGER)) ELSE 0 END
            ELSE 0 END)
    ON CONFLICT (broker, day) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER journal_day_counts_update AFTER UPDATE OF broker, state, detail, created_at, reduce_only ON order_journal
BEGIN
    INSERT INTO journal_day_counts (broker, day, n) VALUES (OLD.broker,
        CASE WHEN OLD.created_at >= 0 THEN OLD.created_at / 86400000000000 ELSE (OLD.created_at + 1) / 86400000000000 - 1 END,
        -(CASE WHEN OLD.state IN ('submitting', 'accepted', 'indeterminate') AND OLD.reduce_only = 0
            THEN 1 + CASE WHEN OLD.detail LIKE '{"children":%' AND json_valid(OLD.detail)
                          THEN max(0, CAST(json_extract(OLD.detail, '$.children') AS INTEGER)) ELSE 0 END
            ELSE 0 END))
    ON CONFLICT (broker, day) DO UPDATE SET n = n + excluded.n;
    INSERT INTO journal_day_counts (broker, day, n) VALUES (NEW.broker,
        CASE WHEN NEW.created_at >= 0 THEN NEW.created_at / 86400000000000 ELSE (NEW.created_at + 1) / 86400000000000 - 1 END,
        CASE WHEN NEW.state IN ('submitting', 'accepted', 'indeterminate') AND NEW.reduce_only = 0
            THEN 1 + CASE WHEN NEW.detail LIKE '{"children":%' AND json_valid(NEW.detail)
                          THEN max(0, CAST(json_extract(NEW.detail, '$.children') AS INTEGER)) ELSE 0 END
            ELSE 0 END)
    ON CONFLICT (broker, day) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER journal_day_counts_delete AFTER DELETE ON order_journal
BEGIN
    INSERT INTO journal_day_counts (broker, day, n) VALUES (OLD.broker,
        CASE WHEN OLD.created_at >= 0 THEN OLD.created_at / 86400000000000 ELSE (OLD.created_at + 1) / 86400000000000 - 1 END,
        -(CASE WHEN OLD.state IN ('submitting', 'accepted', 'indeterminate') AND OLD.reduce_only = 0
            THEN 1 + CASE WHEN OLD.detail LIKE '{"children":%' AND json_valid(OLD.detail)
                          THEN max(0, CAST(json_extract(OLD.detail, '$.children') AS INTEGER)) ELSE 0 END
            ELSE 0 END))
    ON CONFLICT (broker, day) DO UPDATE SET n = n + excluded.n;
END;
