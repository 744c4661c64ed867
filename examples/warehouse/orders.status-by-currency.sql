-- Revenue and orders per status, one column per currency (PIVOT): the aggregates' aliases come
-- first in BigQuery's column names (revenue_USD), a value's alias replaces the value (eur).
SELECT *
FROM (SELECT status, currency, total FROM `my-project.shop.orders`)
PIVOT(SUM(total) AS revenue, COUNT(*) AS orders FOR currency IN ('USD', 'EUR' AS eur))
ORDER BY status
