-- The price of a GPU-hour per provider, GPU model and pricing model: compute
-- cost over billed GPU-hours (PricingQuantity in hours × x_GpuCount), and
-- the all-in cost of the provider's month (compute plus every other charge)
-- over the same hours. gpubill's report gpuhour attributes other charges to
-- the instances they serve and prefers actual hours; this query is the
-- warehouse's first approximation of it.
-- A compute line that names no GPU takes its instance's (a Tencent
-- instance's CPU and disk components bill as compute beside its GPU).
-- Checked against: report gpuhour --format json, compute_cost.
WITH compute AS (
  SELECT f.*,
         MAX(x_GpuModel) OVER (PARTITION BY x_Provider, ResourceId) AS instance_gpu
  FROM focus f
  WHERE x_Kind = 'compute'
)
SELECT billing_period,
       x_Provider      AS provider,
       instance_gpu    AS gpu_model,
       x_PricingModel  AS pricing_model,
       BillingCurrency AS currency,
       SUM(BilledCost) AS compute_cost,
       SUM(CASE WHEN lower(PricingUnit) IN ('hour', 'hours', '小时', 'h')
                THEN PricingQuantity * COALESCE(x_GpuCount, 1) END) AS billed_gpu_hours,
       SUM(BilledCost) / NULLIF(SUM(CASE WHEN lower(PricingUnit) IN ('hour', 'hours', '小时', 'h')
                THEN PricingQuantity * COALESCE(x_GpuCount, 1) END), 0) AS price_per_gpu_hour
FROM compute
WHERE instance_gpu IS NOT NULL
GROUP BY billing_period, x_Provider, instance_gpu, x_PricingModel, BillingCurrency
ORDER BY billing_period, provider, gpu_model, pricing_model;
