-- generate_timestamp_trunc_array(n, 'range_step', now): the ascending timestamps truncated to
-- `step`, one `step` apart, from `now - n range` to `now`. DuckDB has no CURRENT_TIMESTAMP that
-- a test can fix, so the translator passes the bound "now" as the last argument.
CREATE OR REPLACE MACRO generate_timestamp_trunc_array(n, range_step, now) AS (
  generate_series(
    date_trunc(
      split_part(range_step, '_', 2),
      now - CASE split_part(range_step, '_', 1)
        WHEN 'second' THEN to_seconds(n)
        WHEN 'minute' THEN to_minutes(n)
        WHEN 'hour' THEN to_hours(n)
        WHEN 'day' THEN to_days(n)
      END
    ),
    date_trunc(split_part(range_step, '_', 2), now),
    CASE split_part(range_step, '_', 2)
      WHEN 'second' THEN INTERVAL 1 SECOND
      WHEN 'minute' THEN INTERVAL 1 MINUTE
      WHEN 'hour' THEN INTERVAL 1 HOUR
      WHEN 'day' THEN INTERVAL 1 DAY
    END
  )
)
