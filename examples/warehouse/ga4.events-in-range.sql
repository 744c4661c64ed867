-- Events per day of the GA4 export between two daily tables, named as BigQuery names them
-- (the wildcard family and its _TABLE_SUFFIX, as in Google's basic queries).
SELECT
  _TABLE_SUFFIX AS day,
  COUNT(*) AS events,
  COUNT(DISTINCT user_pseudo_id) AS users
FROM `my-project.analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN @first_day AND @last_day
GROUP BY day
ORDER BY day
