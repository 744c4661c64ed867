-- Events per name on two days side by side, a name seen on one day only included: FULL JOIN ...
-- USING (event_name), whose event_name is the one joined column, the name of either side.
WITH day1 AS (
  SELECT event_name, COUNT(*) AS day1_events
  FROM `my-project.analytics_123456.events_20201201`
  WHERE event_name != 'purchase'
  GROUP BY event_name
),
day2 AS (
  SELECT event_name, COUNT(*) AS day2_events
  FROM `my-project.analytics_123456.events_20201202`
  WHERE event_name != 'scroll'
  GROUP BY event_name
)
SELECT event_name, day1_events, day2_events
FROM day1 FULL JOIN day2 USING (event_name)
ORDER BY event_name
