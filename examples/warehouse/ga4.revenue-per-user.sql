-- Task 08a – GA4 Daily User Data Query (its SELECT; the file saves it with CREATE OR REPLACE TABLE ... AS)
SELECT
  user_pseudo_id,
  COUNT(event_name) AS event_count,
  SUM(ecommerce.purchase_revenue_in_usd) AS total_revenue
FROM
  `my-project.analytics_123456.events_*`
WHERE
  _TABLE_SUFFIX BETWEEN '20201201' AND '20201231'
GROUP BY
  user_pseudo_id
ORDER BY
  total_revenue DESC;
