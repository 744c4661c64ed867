-- Events per day of the week before a day, the usual GA4 date window: the table suffixes from
-- DATE_SUB(day, INTERVAL 1 WEEK) on (a WEEK interval is seven days).
SELECT
  event_date,
  COUNT(*) AS events
FROM `my-project.analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN FORMAT_DATE('%Y%m%d', DATE_SUB(DATE '2020-12-09', INTERVAL 1 WEEK)) AND '20201209'
GROUP BY event_date
