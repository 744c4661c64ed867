-- The page titles of page views per day, with the event_params lookup written once as a
-- temporary SQL function, the pattern of the correlated-subquery extraction that public GA4
-- guides give (LIMIT 1 guards a parameter sent twice).
CREATE TEMP FUNCTION GetParamString(params ARRAY<STRUCT<key STRING, value STRUCT<string_value STRING, int_value INT64, float_value FLOAT64, double_value FLOAT64>>>, target STRING) AS (
  (SELECT value.string_value FROM UNNEST(params) WHERE key = target LIMIT 1)
);

SELECT
  event_date,
  GetParamString(event_params, 'page_title') AS page_title,
  COUNT(*) AS page_views
FROM `my-project.analytics_123456.events_*`
WHERE _TABLE_SUFFIX BETWEEN '20201201' AND '20201203'
  AND event_name = 'page_view'
GROUP BY event_date, page_title
ORDER BY event_date, page_title
