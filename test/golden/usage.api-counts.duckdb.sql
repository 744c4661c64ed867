WITH "requests" AS (
  SELECT
    CASE
      WHEN $interval = 'minutely' THEN date_trunc('minute', "t"."timestamp")
      WHEN $interval = 'hourly' THEN date_trunc('hour', "t"."timestamp")
      WHEN $interval = 'daily' THEN date_trunc('day', "t"."timestamp")
    END AS "bucket",
    contains("t"."metadata"."request"."path", '/rest') AS "is_rest",
    contains("t"."metadata"."request"."path", '/storage') AS "is_storage",
    contains("t"."metadata"."request"."path", '/auth') AS "is_auth",
    contains("t"."metadata"."request"."path", '/realtime') AS "is_realtime"
  FROM "cloudflare.logs.prod" AS "t"
  WHERE (regexp_matches("t"."metadata"."request"."url", $project) AND "t"."timestamp" >= CASE
    WHEN $interval = 'minutely' THEN ($__now - INTERVAL (60) MINUTE)
    WHEN $interval = 'hourly' THEN ($__now - INTERVAL (1) HOUR)
    WHEN $interval = 'daily' THEN ($__now - INTERVAL (7) DAY)
  END)
    AND "t"."metadata"."request" IS NOT NULL
),
"counts" AS (
  SELECT
    "bucket",
    count(*) FILTER (WHERE "is_rest") AS "total_rest_requests",
    count(*) FILTER (WHERE "is_storage") AS "total_storage_requests",
    count(*) FILTER (WHERE "is_auth") AS "total_auth_requests",
    count(*) FILTER (WHERE "is_realtime") AS "total_realtime_requests"
  FROM "requests"
  GROUP BY "bucket"
)
SELECT
  CAST("bucket" AS TIMESTAMP_NS) AS "timestamp",
  coalesce(sum("total_rest_requests"), 0) AS "total_rest_requests",
  coalesce(sum("total_storage_requests"), 0) AS "total_storage_requests",
  coalesce(sum("total_auth_requests"), 0) AS "total_auth_requests",
  coalesce(sum("total_realtime_requests"), 0) AS "total_realtime_requests"
FROM "counts"
GROUP BY CAST("bucket" AS TIMESTAMP_NS)
ORDER BY "timestamp" ASC
