-- 0001: the first schema. Column names follow FOCUS 1.2 in snake_case where the
-- concept exists there; columns marked "ext" are gpubill's own extensions.
-- Row tables reference their import with a DEFERRABLE foreign key: checked at
-- commit, so a multi-row INSERT needs no statement journal (measured: a tenth
-- of the insert time of a bulk import).
-- Money columns are TEXT holding a canonical decimal string (NULL = unknown);
-- times are TEXT, RFC 3339 in UTC.

CREATE TABLE imports (
    id              INTEGER PRIMARY KEY,
    path            TEXT NOT NULL,            -- as given by the user
    sha256          TEXT NOT NULL,
    size            INTEGER NOT NULL,
    format          TEXT NOT NULL,            -- format id, e.g. gpubill-bill, focus
    format_version  TEXT NOT NULL DEFAULT '',
    sheet           TEXT NOT NULL DEFAULT '', -- XLSX sheet or zip member; '' for plain files
    header          TEXT NOT NULL DEFAULT '[]', -- JSON array of the header cells
    header_row      INTEGER NOT NULL DEFAULT 0, -- 1-based physical line/row of the header
    rows_read       INTEGER NOT NULL DEFAULT 0,
    rows_new        INTEGER NOT NULL DEFAULT 0,
    rows_duplicate  INTEGER NOT NULL DEFAULT 0,
    rows_skipped    INTEGER NOT NULL DEFAULT 0,
    started_at      TEXT NOT NULL,
    finished_at     TEXT,
    status          TEXT NOT NULL             -- ok | failed
);

CREATE TABLE line_items (
    id                  INTEGER PRIMARY KEY,
    provider            TEXT NOT NULL,
    billing_account_id  TEXT NOT NULL DEFAULT '',
    sub_account         TEXT NOT NULL DEFAULT '',   -- project / cost centre
    billing_period      TEXT NOT NULL,              -- YYYY-MM
    charge_period_start TEXT NOT NULL,
    charge_period_end   TEXT NOT NULL,              -- half-open
    charge_category     TEXT NOT NULL,              -- Usage | Purchase | Tax | Credit | Adjustment
    kind                TEXT NOT NULL,              -- ext: compute | storage | image | ...
    pricing_model       TEXT NOT NULL DEFAULT 'on_demand', -- ext
    service_name        TEXT NOT NULL DEFAULT '',
    resource_id         TEXT NOT NULL DEFAULT '',
    resource_name       TEXT NOT NULL DEFAULT '',
    resource_type       TEXT NOT NULL DEFAULT '',
    sku                 TEXT NOT NULL DEFAULT '',
    parent_resource_id  TEXT NOT NULL DEFAULT '',   -- ext
    gpu_model           TEXT NOT NULL DEFAULT '',   -- ext
    gpu_count           INTEGER,                    -- ext
    region              TEXT NOT NULL DEFAULT '',
    zone                TEXT NOT NULL DEFAULT '',
    consumed_quantity   TEXT,
    consumed_unit       TEXT NOT NULL DEFAULT '',
    pricing_quantity    TEXT,
    pricing_unit        TEXT NOT NULL DEFAULT '',
    list_unit_price     TEXT,
    list_cost           TEXT,
    billed_cost         TEXT NOT NULL,
    voucher_paid        TEXT,                       -- ext
    cash_paid           TEXT,                       -- ext
    other_paid          TEXT,                       -- ext
    unpaid              TEXT,                       -- ext
    currency            TEXT NOT NULL,
    usage_start         TEXT,                       -- ext: actual run time
    usage_end           TEXT,                       -- ext
    tags                TEXT NOT NULL DEFAULT '{}',
    description         TEXT NOT NULL DEFAULT '',
    raw                 TEXT NOT NULL DEFAULT '[]', -- ext: source cells as a JSON array
    import_id           INTEGER NOT NULL REFERENCES imports(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    source_row          INTEGER NOT NULL,           -- ext: 1-based record number (header = 0)
    row_key             TEXT NOT NULL               -- ext: dedupe key (unique: index below)
);
-- A named index rather than a UNIQUE constraint, so that a bulk import into an
-- empty ledger can build it once at commit (ledger.ImportTx.DeferIndexes).
CREATE UNIQUE INDEX line_items_row_key ON line_items(row_key);
CREATE INDEX line_items_period ON line_items(billing_period, provider, kind, currency, billed_cost);
CREATE INDEX line_items_resource ON line_items(provider, resource_id, charge_period_start);
CREATE INDEX line_items_import ON line_items(import_id);

CREATE TABLE transactions (
    id          INTEGER PRIMARY KEY,
    provider    TEXT NOT NULL,
    account     TEXT NOT NULL DEFAULT '',
    time        TEXT NOT NULL,
    type        TEXT NOT NULL,   -- topup | charge | refund | withdrawal | voucher | freeze | unfreeze
    amount      TEXT NOT NULL,   -- positive; type gives the direction
    currency    TEXT NOT NULL,
    balance     TEXT,            -- balance after, when shown
    reference   TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    raw         TEXT NOT NULL DEFAULT '[]',
    import_id   INTEGER NOT NULL REFERENCES imports(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    source_row  INTEGER NOT NULL,
    row_key     TEXT NOT NULL UNIQUE
);
CREATE INDEX transactions_time ON transactions(provider, time);
CREATE INDEX transactions_import ON transactions(import_id);

CREATE TABLE payments (
    id           INTEGER PRIMARY KEY,
    source       TEXT NOT NULL,  -- alipay | wechatpay
    time         TEXT NOT NULL,
    direction    TEXT NOT NULL,  -- out | in | none
    counterparty TEXT NOT NULL DEFAULT '',
    item         TEXT NOT NULL DEFAULT '',
    amount       TEXT NOT NULL,
    currency     TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT '',
    order_no     TEXT NOT NULL DEFAULT '',
    merchant_order_no TEXT NOT NULL DEFAULT '',
    raw          TEXT NOT NULL DEFAULT '[]',
    import_id    INTEGER NOT NULL REFERENCES imports(id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    source_row   INTEGER NOT NULL,
    row_key      TEXT NOT NULL UNIQUE
);

CREATE TABLE invoices (
    id         INTEGER PRIMARY KEY,
    provider   TEXT NOT NULL,
    number     TEXT NOT NULL,
    date       TEXT NOT NULL,
    amount     TEXT NOT NULL,
    currency   TEXT NOT NULL,
    title      TEXT NOT NULL DEFAULT '',
    period     TEXT NOT NULL DEFAULT '',  -- YYYY-MM it covers, if known
    UNIQUE(provider, number)
);

CREATE TABLE audit_runs (
    id          INTEGER PRIMARY KEY,
    started_at  TEXT NOT NULL,
    month       TEXT NOT NULL,
    tz          TEXT NOT NULL,
    params      TEXT NOT NULL DEFAULT '{}'  -- JSON of the rule parameters used
);

CREATE TABLE findings (
    id             INTEGER PRIMARY KEY,
    fingerprint    TEXT NOT NULL UNIQUE,  -- stable across reruns
    run_id         INTEGER NOT NULL REFERENCES audit_runs(id),  -- last run that produced it
    first_run_id   INTEGER NOT NULL REFERENCES audit_runs(id),
    month          TEXT NOT NULL,
    rule_id        TEXT NOT NULL,
    severity       TEXT NOT NULL,         -- info | low | medium | high
    provider       TEXT NOT NULL,
    resource_id    TEXT NOT NULL DEFAULT '',
    period_start   TEXT NOT NULL,
    period_end     TEXT NOT NULL,
    amount_at_risk TEXT,                  -- NULL = not quantifiable
    currency       TEXT NOT NULL,
    basis          TEXT NOT NULL DEFAULT '',  -- how the amount was computed
    reason_zh      TEXT NOT NULL,
    reason_en      TEXT NOT NULL,
    advice_zh      TEXT NOT NULL DEFAULT '',
    advice_en      TEXT NOT NULL DEFAULT '',
    state          TEXT NOT NULL DEFAULT 'open'  -- open | acknowledged | resolved
);
CREATE INDEX findings_month ON findings(month, rule_id);

CREATE TABLE finding_evidence (
    finding_id   INTEGER NOT NULL REFERENCES findings(id) ON DELETE CASCADE,
    line_item_id INTEGER NOT NULL,
    file         TEXT NOT NULL,
    row          INTEGER NOT NULL,
    PRIMARY KEY (finding_id, line_item_id)
);
