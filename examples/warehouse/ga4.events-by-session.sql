-- Events of one name per GA4 session. The session id is joined with a condition on the UNNEST,
-- and a LEFT JOIN keeps the events that carry no session id (their ga_session_id is NULL).
SELECT session.value.int_value AS ga_session_id, COUNT(*) AS events
FROM `my-project.analytics_123456.events_*`
LEFT JOIN UNNEST(event_params) AS session ON session.key = 'ga_session_id'
WHERE event_name = @event_name
GROUP BY ga_session_id
