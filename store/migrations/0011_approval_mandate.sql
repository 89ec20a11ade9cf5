-- Issue 28 §4: a review item records the SHA-256 of the verified mandate its breaches were
-- computed under; the approved order's gate run refuses it under any other mandate. Older
-- rows keep '' and their grants cover nothing.
ALTER TABLE approvals ADD COLUMN mandate_sha256 TEXT NOT NULL DEFAULT '';
