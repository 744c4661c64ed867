-- Sessions per page_view page and date (the last query of the file cited in the YAML).
SELECT
  PARSE_DATE('%Y%m%d', event_date) AS event_date,
  (SELECT value.string_value FROM UNNEST(event_params) WHERE key = "page_location") AS page_url,
  COUNT(DISTINCT CONCAT(
    (SELECT value.int_value FROM UNNEST(event_params) WHERE key = "ga_session_id"),
    "_",
    user_pseudo_id
  )) AS sessions
FROM
  `my-project.analytics_123456.events_*`
WHERE
  event_name = 'page_view'  -- Filter for page view events
  AND PARSE_DATE('%Y%m%d', event_date) BETWEEN '2020-12-01' AND '2020-12-31'
GROUP BY
  event_date,
  page_url
ORDER BY
  event_date,
  sessions DESC
