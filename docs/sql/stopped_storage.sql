-- Storage billed while its instance ran no compute: the lines the audit's
-- stopped_storage rule flagged, per resource.
-- Checked against: report findings, rule stopped_storage, amount_at_risk.
SELECT billing_period,
       x_Provider      AS provider,
       ResourceId      AS resource_id,
       BillingCurrency AS currency,
       COUNT(*)        AS line_items,
       SUM(BilledCost) AS billed_cost
FROM focus
WHERE x_Kind = 'storage'
  AND (',' || x_FindingRules || ',') LIKE '%,stopped_storage,%'
GROUP BY billing_period, x_Provider, ResourceId, BillingCurrency
ORDER BY billing_period, provider, resource_id;
