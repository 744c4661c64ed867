-- Orders per calendar day, days without orders included: the orders RIGHT JOIN a date spine
-- (GENERATE_DATE_ARRAY), so every day of the spine comes out, with 0 where nothing was ordered.
WITH days AS (
  SELECT day FROM UNNEST(GENERATE_DATE_ARRAY('2020-11-30', '2020-12-04')) AS day
)
SELECT
  days.day,
  COUNT(o.order_id) AS orders,
  IFNULL(SUM(o.total), 0) AS revenue
FROM `my-project.shop.orders` AS o
RIGHT JOIN days ON o.order_date = days.day
GROUP BY days.day
ORDER BY days.day
