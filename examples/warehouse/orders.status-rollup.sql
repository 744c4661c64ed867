-- Orders and revenue per status and currency, with a subtotal per status and a grand total
-- (GROUP BY ROLLUP): the rolled-up columns are NULL there, and GROUPING says which are subtotals.
SELECT
  status,
  currency,
  COUNT(*) AS orders,
  SUM(total) AS revenue,
  GROUPING(currency) AS all_currencies
FROM `my-project.shop.orders`
GROUP BY ROLLUP(status, currency)
ORDER BY status, currency
