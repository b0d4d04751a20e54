-- 0007 (gpubill extension): the latest charge period end of each provider
-- in the whole ledger. The audit asks it every time ("is this session still
-- running at the end of the data?"), and asked of line_items it is a scan of
-- the whole table (about a second at a million rows). Kept by the ledger
-- itself: an import raises it (ImportTx.Commit), undoing an import computes
-- it again (UndoImport).
CREATE TABLE data_ends (
    provider          TEXT PRIMARY KEY,
    charge_period_end TEXT NOT NULL
) WITHOUT ROWID;

INSERT INTO data_ends(provider, charge_period_end)
    SELECT provider, max(charge_period_end) FROM line_items GROUP BY provider;
