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
    WHEN $interval = 'minutely' THEN CASE WHEN ($__now - INTERVAL (60) MINUTE) < TIMESTAMP '0001-01-01 00:00:00' OR ($__now - INTERVAL (60) MINUTE) > TIMESTAMP '9999-12-31 23:59:59.999999' THEN error('BQ: Subtracting 60 MINUTE from timestamp ' || list_transform([CAST($__now AS TIMESTAMP)], v -> strftime(v, '%Y-%m-%d %H:%M:%S') || CASE WHEN microsecond(v) % 1000000 = 0 THEN '' WHEN microsecond(v) % 1000 = 0 THEN strftime(v, '.%g') ELSE strftime(v, '.%f') END || '+00')[1] || ' causes overflow') ELSE ($__now - INTERVAL (60) MINUTE) END
    WHEN $interval = 'hourly' THEN CASE WHEN ($__now - INTERVAL (1) HOUR) < TIMESTAMP '0001-01-01 00:00:00' OR ($__now - INTERVAL (1) HOUR) > TIMESTAMP '9999-12-31 23:59:59.999999' THEN error('BQ: Subtracting 1 HOUR from timestamp ' || list_transform([CAST($__now AS TIMESTAMP)], v -> strftime(v, '%Y-%m-%d %H:%M:%S') || CASE WHEN microsecond(v) % 1000000 = 0 THEN '' WHEN microsecond(v) % 1000 = 0 THEN strftime(v, '.%g') ELSE strftime(v, '.%f') END || '+00')[1] || ' causes overflow') ELSE ($__now - INTERVAL (1) HOUR) END
    WHEN $interval = 'daily' THEN CASE WHEN ($__now - INTERVAL (7) DAY) < TIMESTAMP '0001-01-01 00:00:00' OR ($__now - INTERVAL (7) DAY) > TIMESTAMP '9999-12-31 23:59:59.999999' THEN error('BQ: Subtracting 7 DAY from timestamp ' || list_transform([CAST($__now AS TIMESTAMP)], v -> strftime(v, '%Y-%m-%d %H:%M:%S') || CASE WHEN microsecond(v) % 1000000 = 0 THEN '' WHEN microsecond(v) % 1000 = 0 THEN strftime(v, '.%g') ELSE strftime(v, '.%f') END || '+00')[1] || ' causes overflow') ELSE ($__now - INTERVAL (7) DAY) END
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
  CAST("bucket" AS TIMESTAMPTZ) AS "timestamp",
  coalesce(sum("total_rest_requests"), 0) AS "total_rest_requests",
  coalesce(sum("total_storage_requests"), 0) AS "total_storage_requests",
  coalesce(sum("total_auth_requests"), 0) AS "total_auth_requests",
  coalesce(sum("total_realtime_requests"), 0) AS "total_realtime_requests"
FROM "counts"
GROUP BY CAST("bucket" AS TIMESTAMPTZ)
ORDER BY "timestamp" ASC
