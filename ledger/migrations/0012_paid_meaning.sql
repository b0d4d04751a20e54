-- 0012 (gpubill extension): the line items stored before ledger.SettlePaid
-- take its meaning (ledger/paid.go), so that an old ledger and a fresh
-- import of the same files report the same vouchers and cash. Their row
-- keys are unchanged (SettlePaid runs after the key).
-- A credit line that states a voucher part: the voucher used, positive, and
-- the cash reduced by it (plus any money the line paid back).
UPDATE line_items SET
    voucher_paid = ltrim(voucher_paid, '-'),
    cash_paid = (SELECT dsum(x) FROM (SELECT '-' || ltrim(line_items.voucher_paid, '-') AS x
        UNION ALL SELECT line_items.cash_paid WHERE line_items.cash_paid LIKE '-%'))
WHERE kind = 'credit' AND voucher_paid IS NOT NULL AND trim(voucher_paid, '-0.') <> '';
-- A credit line without a voucher part is a voucher.
UPDATE line_items SET
    voucher_paid = CASE
        WHEN billed_cost LIKE '-%' THEN substr(billed_cost, 2)
        WHEN trim(billed_cost, '0.') = '' THEN billed_cost
        ELSE '-' || billed_cost END,
    cash_paid = billed_cost, other_paid = NULL, unpaid = NULL
WHERE kind = 'credit' AND voucher_paid IS NULL;
-- A FOCUS charge that states no part was paid in money.
UPDATE line_items SET cash_paid = billed_cost
WHERE kind <> 'credit' AND voucher_paid IS NULL AND cash_paid IS NULL AND other_paid IS NULL AND unpaid IS NULL
    AND import_id IN (SELECT id FROM imports WHERE format = 'focus');
