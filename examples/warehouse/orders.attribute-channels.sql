-- Orders per channel and coupon, read from the JSON column `attributes`: STRING() of a JSON string
-- (an error for any other kind, as BigQuery raises), LAX_STRING() where the member may be null.
SELECT STRING(attributes.channel) AS channel, LAX_STRING(attributes['coupon']) AS coupon, COUNT(*) AS orders
FROM `my-project.shop.orders`
GROUP BY channel, coupon
