-- 0005: which provider-months each import brought line items for, so that an
-- import can tell at once whether the same provider and month already came
-- in another format (腾讯云's L2 resource bill and its L3 detail bill, the
-- gpubill template and a console export, 阿里云's two detail exports): the
-- same charges twice, which every total would then count twice. Kept small
-- (one row per import, provider and month) instead of scanning line items.
CREATE TABLE import_periods (
    import_id      INTEGER NOT NULL REFERENCES imports(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    provider       TEXT NOT NULL,
    billing_period TEXT NOT NULL,
    line_items     INTEGER NOT NULL,   -- rows of the file for it (new and already stored)
    PRIMARY KEY (import_id, provider, billing_period)
) WITHOUT ROWID;
CREATE INDEX import_periods_period ON import_periods(provider, billing_period);

INSERT INTO import_periods(import_id, provider, billing_period, line_items)
    SELECT import_id, provider, billing_period, count(*) FROM line_items GROUP BY import_id, provider, billing_period;
