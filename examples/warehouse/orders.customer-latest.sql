-- Per customer: the first order, the latest order's status and shipping method, and every tag of
-- their orders. MAX_BY(x, y) is ANY_VALUE(x HAVING MAX y): the latest order's method is NULL when
-- that order is not shipped, not an earlier order's. ARRAY_CONCAT_AGG joins the tag arrays.
SELECT
  customer_id,
  MIN_BY(order_id, created_at) AS first_order,
  ANY_VALUE(status HAVING MAX created_at) AS latest_status,
  MAX_BY(shipping.method, created_at) AS latest_method,
  ARRAY_CONCAT_AGG(tags ORDER BY created_at) AS tags
FROM `my-project.shop.orders`
WHERE customer_id IS NOT NULL
GROUP BY customer_id
