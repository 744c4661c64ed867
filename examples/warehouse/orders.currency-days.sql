-- Orders per currency on each of the first three days of the month, a column per day (PIVOT over
-- whole numbers): BigQuery names the column of the value 1 `_1`.
SELECT *
FROM (SELECT currency, EXTRACT(DAY FROM order_date) AS day FROM `my-project.shop.orders`)
PIVOT(COUNT(*) FOR day IN (1, 2, 3))
ORDER BY currency
