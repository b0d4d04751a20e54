-- Hidden-charge share per provider and month: everything but compute is a
-- candidate hidden charge (DESIGN.md); money at risk is what the audit's
-- findings flagged, each line counted once (x_AmountAtRisk).
-- Checked against: report spend (non-compute billed) and report findings totals.
SELECT billing_period,
       x_Provider      AS provider,
       BillingCurrency AS currency,
       SUM(BilledCost) AS billed_cost,
       SUM(CASE WHEN x_Kind <> 'compute' AND x_Kind <> 'credit' AND x_Kind <> 'tax' THEN BilledCost ELSE 0 END) AS hidden_cost,
       SUM(CASE WHEN x_Kind <> 'compute' AND x_Kind <> 'credit' AND x_Kind <> 'tax' THEN BilledCost ELSE 0 END)
         / NULLIF(SUM(CASE WHEN x_Kind <> 'credit' AND x_Kind <> 'tax' THEN BilledCost ELSE 0 END), 0) AS hidden_share,
       SUM(x_AmountAtRisk) AS amount_at_risk
FROM focus
GROUP BY billing_period, x_Provider, BillingCurrency
ORDER BY billing_period, provider, currency;
