-- Revenue per order day, NUMERIC kept exact.
SELECT
  order_date,
  COUNT(*) AS orders,
  SUM(total) AS revenue
FROM `my-project.shop.orders`
WHERE status != 'refunded'
GROUP BY order_date
ORDER BY order_date
