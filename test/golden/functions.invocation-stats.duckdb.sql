WITH "dates" AS (
  SELECT
    CASE
      WHEN $interval = '5min' THEN generate_series(date_trunc('second', $__now - to_minutes(5)), date_trunc('second', $__now), INTERVAL 1 SECOND)
      WHEN $interval = '15min' THEN generate_series(date_trunc('minute', $__now - to_minutes(15)), date_trunc('minute', $__now), INTERVAL 1 MINUTE)
      WHEN $interval = '1hr' THEN generate_series(date_trunc('minute', $__now - to_hours(1)), date_trunc('minute', $__now), INTERVAL 1 MINUTE)
      WHEN $interval = '1day' THEN generate_series(date_trunc('hour', $__now - to_days(1)), date_trunc('hour', $__now), INTERVAL 1 HOUR)
      WHEN $interval = '7day' THEN generate_series(date_trunc('day', $__now - to_days(7)), date_trunc('day', $__now), INTERVAL 1 DAY)
      ELSE generate_series(date_trunc('hour', $__now - to_days(1)), date_trunc('hour', $__now), INTERVAL 1 HOUR)
    END AS "timestamps"
),
"buckets" AS (
  SELECT
    "bucket"
  FROM "dates"
  CROSS JOIN unnest("dates"."timestamps") AS "bucket"("bucket")
),
"invocations" AS (
  SELECT
    CASE
      WHEN $interval = '5min' THEN date_trunc('second', "t"."timestamp")
      WHEN $interval = '15min' THEN date_trunc('minute', "t"."timestamp")
      WHEN $interval = '1hr' THEN date_trunc('minute', "t"."timestamp")
      WHEN $interval = '7day' THEN date_trunc('day', "t"."timestamp")
      ELSE date_trunc('hour', "t"."timestamp")
    END AS "bucket",
    "t"."metadata"."execution_time_ms",
    "t"."metadata"."response"."status_code"
  FROM "deno-relay-logs" AS "t"
  WHERE "t"."metadata"."project_ref" = $project AND (coalesce($function_id, '') = '' OR "t"."metadata"."function_id" = $function_id) AND "t"."timestamp" >= (
    SELECT
      (CASE WHEN len("dates"."timestamps") > 0 THEN "dates"."timestamps"[1] WHEN "dates"."timestamps" IS NULL THEN NULL ELSE error('BQ: Array index 0 is out of bounds (overflow)') END) AS "f0_"
    FROM "dates"
  )
),
"stats" AS (
  SELECT
    "buckets"."bucket" AS "timestamp",
    min("invocations"."execution_time_ms") AS "min_execution_time",
    max("invocations"."execution_time_ms") AS "max_execution_time",
    avg("invocations"."execution_time_ms") AS "avg_execution_time",
    quantile_disc("invocations"."execution_time_ms", 0.95) AS "p95_execution_time",
    quantile_disc("invocations"."execution_time_ms", 0.99) AS "p99_execution_time",
    count("invocations"."bucket") AS "count",
    count(*) FILTER (WHERE "invocations"."status_code" >= 400) AS "error_count",
    count(*) FILTER (WHERE "invocations"."status_code" BETWEEN 100 AND 199) AS "status_1xx",
    count(*) FILTER (WHERE "invocations"."status_code" BETWEEN 200 AND 299) AS "status_2xx",
    count(*) FILTER (WHERE "invocations"."status_code" BETWEEN 300 AND 399) AS "status_3xx",
    count(*) FILTER (WHERE "invocations"."status_code" BETWEEN 400 AND 499) AS "status_4xx",
    count(*) FILTER (WHERE "invocations"."status_code" BETWEEN 500 AND 599) AS "status_5xx"
  FROM "buckets"
  LEFT JOIN "invocations" ON "invocations"."bucket" = "buckets"."bucket"
  GROUP BY "buckets"."bucket"
)
SELECT
  "timestamp",
  "min_execution_time",
  "max_execution_time",
  "avg_execution_time",
  "p95_execution_time",
  "p99_execution_time",
  "count",
  "error_count"
FROM "stats"
ORDER BY "timestamp" ASC
