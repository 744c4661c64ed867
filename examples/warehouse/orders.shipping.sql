-- Orders with their shipping STRUCT (NULL when not shipped yet) and their tags array.
SELECT
  order_id,
  shipping,
  tags,
  is_gift
FROM `my-project.shop.orders`
ORDER BY order_id
LIMIT 20
