-- Issue 10 item 7: a review item lists every breach its order had when it was asked (JSON
-- array of {limit, limit_value, attempted, detail}), and what happened after an approval
-- (the re-checked order's result), so every screen and terminal can say it.
ALTER TABLE approvals ADD COLUMN breaches TEXT NOT NULL DEFAULT '';
ALTER TABLE approvals ADD COLUMN outcome TEXT NOT NULL DEFAULT '';
