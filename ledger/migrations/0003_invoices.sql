-- 0003: invoices for reconciliation (issue 6). The table of 0001 could hold one
-- row per (provider, number) and one month; reconciliation needs:
--   * the same invoice number stored twice when two imports (or a hand entry and
--     an import) disagree about it, so that it can be reported as invoiced twice:
--     rows are deduplicated by row_key (provider, number, date, amount, currency,
--     period) instead, and an identical re-import adds nothing;
--   * an invoice that spans months: period_start .. period_end (YYYY-MM, inclusive;
--     both '' = not stated);
--   * evidence: the import and source row it came from (NULL/0 = `invoice add`),
--     and a free note.
-- SQLite cannot drop a UNIQUE constraint, so the table is rebuilt; rows of 0001
-- keep their id and get period_start = period_end = period.

CREATE TABLE invoices_0003 (
    id           INTEGER PRIMARY KEY,
    provider     TEXT NOT NULL,
    number       TEXT NOT NULL,             -- 发票号码
    date         TEXT NOT NULL,             -- 开票日期, YYYY-MM-DD
    amount       TEXT NOT NULL,             -- 价税合计, canonical decimal text
    currency     TEXT NOT NULL,
    title        TEXT NOT NULL DEFAULT '',  -- 抬头
    period_start TEXT NOT NULL DEFAULT '',  -- first month covered, YYYY-MM
    period_end   TEXT NOT NULL DEFAULT '',  -- last month covered, YYYY-MM (inclusive)
    note         TEXT NOT NULL DEFAULT '',
    raw          TEXT NOT NULL DEFAULT '[]',
    import_id    INTEGER REFERENCES imports(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED, -- NULL = added by hand
    source_row   INTEGER NOT NULL DEFAULT 0,
    row_key      TEXT NOT NULL UNIQUE,
    added_at     TEXT NOT NULL DEFAULT ''
);

INSERT INTO invoices_0003(id, provider, number, date, amount, currency, title, period_start, period_end, row_key)
SELECT id, provider, number, date, amount, currency, title, period, period, 'v1:' || provider || ':' || number
FROM invoices;

DROP TABLE invoices;
ALTER TABLE invoices_0003 RENAME TO invoices;
CREATE INDEX invoices_number ON invoices(number);
CREATE INDEX invoices_period ON invoices(provider, period_start, period_end);

-- Documented view for user SQL rules, like those of 0002.
CREATE VIEW v_invoices AS
SELECT i.id, i.provider, i.number, i.date, i.amount, i.currency, i.title, i.period_start, i.period_end, i.note,
       i.import_id, i.source_row, im.path AS file
FROM invoices i LEFT JOIN imports im ON im.id = i.import_id;
