-- Spend by provider, charge kind and billing month, per currency.
-- Checked against: gpubill report spend --format json (billed_cost, cash_paid).
SELECT billing_period,
       x_Provider      AS provider,
       x_Kind          AS kind,
       BillingCurrency AS currency,
       SUM(BilledCost) AS billed_cost,
       SUM(x_CashPaid) AS cash_paid
FROM focus
GROUP BY billing_period, x_Provider, x_Kind, BillingCurrency
ORDER BY billing_period, provider, kind, currency;
