-- 0002: documented, stable views for user SQL rules (docs/user-rules.md).
-- User rules run on a read-only connection and should read these views, not
-- the tables: the views are the contract, the tables may change. Money
-- columns stay TEXT decimals (sum them with dsum(), never SUM()); times stay
-- TEXT, RFC 3339 in UTC.

-- One row per line item, with the path of the file it was imported from and
-- its duration in seconds.
CREATE VIEW v_line_items AS
SELECT li.id, li.provider, li.billing_account_id, li.sub_account, li.billing_period,
       li.charge_period_start, li.charge_period_end,
       CAST(unixepoch(li.charge_period_end) - unixepoch(li.charge_period_start) AS INTEGER) AS duration_seconds,
       li.charge_category, li.kind, li.pricing_model, li.service_name,
       li.resource_id, li.resource_name, li.resource_type, li.sku, li.parent_resource_id,
       li.gpu_model, li.gpu_count, li.region, li.zone,
       li.consumed_quantity, li.consumed_unit, li.pricing_quantity, li.pricing_unit,
       li.list_unit_price, li.list_cost, li.billed_cost, li.voucher_paid, li.cash_paid, li.other_paid, li.unpaid,
       li.currency, li.usage_start, li.usage_end, li.tags, li.description, li.raw,
       li.import_id, li.source_row, li.row_key,
       im.path AS file
FROM line_items li JOIN imports im ON im.id = li.import_id;

-- One row per imported file (or sheet / zip member).
CREATE VIEW v_imports AS
SELECT id, path AS file, sha256, size, format, format_version, sheet, rows_read, rows_new, rows_duplicate,
       rows_skipped, started_at, finished_at, status
FROM imports;

-- The findings stored by earlier audits (a user rule sees the previous run,
-- not the one it is part of), with the number of evidence rows.
CREATE VIEW v_findings AS
SELECT f.id, f.fingerprint, f.month, f.rule_id, f.severity, f.provider, f.resource_id,
       f.period_start, f.period_end, f.amount_at_risk, f.currency, f.basis,
       f.reason_zh, f.reason_en, f.advice_zh, f.advice_en, f.state,
       (SELECT count(*) FROM finding_evidence e WHERE e.finding_id = f.id) AS evidence_count
FROM findings f;

-- The evidence rows of the stored findings.
CREATE VIEW v_finding_evidence AS
SELECT f.fingerprint, f.rule_id, e.line_item_id, e.file, e.row
FROM finding_evidence e JOIN findings f ON f.id = e.finding_id;

-- Platform money flow (收支明细) and payment records.
CREATE VIEW v_transactions AS
SELECT t.id, t.provider, t.account, t.time, t.type, t.amount, t.currency, t.balance, t.reference, t.description,
       t.import_id, t.source_row, im.path AS file
FROM transactions t JOIN imports im ON im.id = t.import_id;

CREATE VIEW v_payments AS
SELECT p.id, p.source, p.time, p.direction, p.counterparty, p.item, p.amount, p.currency, p.status,
       p.order_no, p.merchant_order_no, p.import_id, p.source_row, im.path AS file
FROM payments p JOIN imports im ON im.id = p.import_id;
