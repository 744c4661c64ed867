-- The median order total per currency: PERCENTILE_CONT of a NUMERIC is a NUMERIC in BigQuery,
-- interpolated to 9 decimal places (the median of 139.94 and 139.95 is 139.945), never cut to
-- the column's 2; PERCENTILE_DISC picks one of the totals.
SELECT DISTINCT
  currency,
  PERCENTILE_CONT(total, 0.5) OVER (PARTITION BY currency) AS median_total,
  PERCENTILE_DISC(total, 0.5) OVER (PARTITION BY currency) AS median_order_total
FROM `my-project.shop.orders`
ORDER BY currency
