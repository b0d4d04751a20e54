-- 0006: line_items_period (billing_period, provider, kind, currency,
-- billed_cost) becomes line_items_month (billing_period).
--   * No query was covered by the wide index: the spend report also reads
--     the voucher, cash and list amounts, so it went to the table for every
--     row anyway; it served only to select a month.
--   * It was the dearest part of a big import: every comparison of its sort
--     went past the month, provider, kind and currency (equal for most rows)
--     to the amount. Built with the sqlite3 tool over a million line items:
--     3.1 s against 0.6 s for the month alone, and 1.9 s for the unique key;
--     the whole `.import` of the same bill takes 4.7 s.
DROP INDEX IF EXISTS line_items_period;
CREATE INDEX line_items_month ON line_items(billing_period);
