-- Network charges (traffic, bandwidth, public IP) per resource and month
-- above a threshold (gpubill's default: 10 in the bill's currency).
-- Checked against: report findings, rule egress, amount_at_risk of each
-- resource the rule names.
SELECT billing_period,
       x_Provider      AS provider,
       COALESCE(x_ParentResourceId, ResourceId) AS resource_id,
       BillingCurrency AS currency,
       SUM(BilledCost) AS network_cost
FROM focus
WHERE x_Kind = 'network'
GROUP BY billing_period, x_Provider, COALESCE(x_ParentResourceId, ResourceId), BillingCurrency
HAVING SUM(BilledCost) > 10
ORDER BY billing_period, provider, resource_id;
