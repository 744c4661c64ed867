-- Items bought, through each buyer's basket: an ARRAY_AGG of STRUCTs made in a WITH table and
-- unnested without an alias, so the struct's fields are named as columns.
WITH baskets AS (
  SELECT user_pseudo_id, ARRAY_AGG(STRUCT(item.item_name AS item_name, item.quantity AS quantity)) AS item_list
  FROM `my-project.analytics_123456.events_*`, UNNEST(items) AS item
  WHERE event_name = 'purchase'
  GROUP BY user_pseudo_id
)
SELECT item_name, SUM(quantity) AS quantity, COUNT(DISTINCT user_pseudo_id) AS buyers
FROM baskets, UNNEST(item_list)
GROUP BY item_name
