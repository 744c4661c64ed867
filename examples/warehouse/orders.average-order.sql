-- The average order per currency: AVG of a NUMERIC and a NUMERIC divided by an INT64 are NUMERIC
-- in BigQuery (exact, 9 decimal places), never a FLOAT64.
SELECT
  currency,
  AVG(total) AS average_total,
  SUM(total) / COUNT(*) AS mean_total
FROM `my-project.shop.orders`
GROUP BY currency
ORDER BY currency
