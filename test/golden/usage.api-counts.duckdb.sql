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
    WHEN $interval = 'minutely' THEN CASE WHEN ($__now - INTERVAL (60) MINUTE) < TIMESTAMP '0001-01-01 00:00:00' OR ($__now - INTERVAL (60) MINUTE) > TIMESTAMP '9999-12-31 23:59:59.999999' THEN error('Subtracting 60 MINUTE from timestamp ' || list_transform([$__now], v -> CASE WHEN starts_with(typeof(v), 'DECIMAL') THEN regexp_replace(CAST(v AS VARCHAR), '(\.[0-9]*[1-9])0+$|\.0+$', '\1') ELSE CASE typeof(v) WHEN 'DOUBLE' THEN CASE WHEN isnan(CAST(CAST(v AS VARCHAR) AS DOUBLE)) OR isinf(CAST(CAST(v AS VARCHAR) AS DOUBLE)) THEN CAST(v AS VARCHAR) WHEN CAST(CAST(v AS VARCHAR) AS DOUBLE) = 0 THEN '0' ELSE CASE WHEN CAST(printf('%.15g', CAST(CAST(v AS VARCHAR) AS DOUBLE)) AS DOUBLE) = CAST(CAST(v AS VARCHAR) AS DOUBLE) THEN printf('%.15g', CAST(CAST(v AS VARCHAR) AS DOUBLE)) ELSE printf('%.17g', CAST(CAST(v AS VARCHAR) AS DOUBLE)) END END WHEN 'TIMESTAMP' THEN regexp_replace(CAST(v AS VARCHAR), '\.[0-9]+$', '') || CASE WHEN regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1) = '' THEN '' ELSE '.' || rpad(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1), CASE WHEN length(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1)) <= 3 THEN 3 ELSE 6 END, '0') END || '+00' WHEN 'TIMESTAMP_NS' THEN regexp_replace(CAST(v AS VARCHAR), '\.[0-9]+$', '') || CASE WHEN regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1) = '' THEN '' ELSE '.' || rpad(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1), CASE WHEN length(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1)) <= 3 THEN 3 ELSE 6 END, '0') END WHEN 'TIME' THEN regexp_replace(CAST(v AS VARCHAR), '\.[0-9]+$', '') || CASE WHEN regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1) = '' THEN '' ELSE '.' || rpad(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1), CASE WHEN length(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1)) <= 3 THEN 3 ELSE 6 END, '0') END ELSE CAST(v AS VARCHAR) END END)[1] || ' causes overflow') ELSE ($__now - INTERVAL (60) MINUTE) END
    WHEN $interval = 'hourly' THEN CASE WHEN ($__now - INTERVAL (1) HOUR) < TIMESTAMP '0001-01-01 00:00:00' OR ($__now - INTERVAL (1) HOUR) > TIMESTAMP '9999-12-31 23:59:59.999999' THEN error('Subtracting 1 HOUR from timestamp ' || list_transform([$__now], v -> CASE WHEN starts_with(typeof(v), 'DECIMAL') THEN regexp_replace(CAST(v AS VARCHAR), '(\.[0-9]*[1-9])0+$|\.0+$', '\1') ELSE CASE typeof(v) WHEN 'DOUBLE' THEN CASE WHEN isnan(CAST(CAST(v AS VARCHAR) AS DOUBLE)) OR isinf(CAST(CAST(v AS VARCHAR) AS DOUBLE)) THEN CAST(v AS VARCHAR) WHEN CAST(CAST(v AS VARCHAR) AS DOUBLE) = 0 THEN '0' ELSE CASE WHEN CAST(printf('%.15g', CAST(CAST(v AS VARCHAR) AS DOUBLE)) AS DOUBLE) = CAST(CAST(v AS VARCHAR) AS DOUBLE) THEN printf('%.15g', CAST(CAST(v AS VARCHAR) AS DOUBLE)) ELSE printf('%.17g', CAST(CAST(v AS VARCHAR) AS DOUBLE)) END END WHEN 'TIMESTAMP' THEN regexp_replace(CAST(v AS VARCHAR), '\.[0-9]+$', '') || CASE WHEN regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1) = '' THEN '' ELSE '.' || rpad(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1), CASE WHEN length(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1)) <= 3 THEN 3 ELSE 6 END, '0') END || '+00' WHEN 'TIMESTAMP_NS' THEN regexp_replace(CAST(v AS VARCHAR), '\.[0-9]+$', '') || CASE WHEN regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1) = '' THEN '' ELSE '.' || rpad(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1), CASE WHEN length(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1)) <= 3 THEN 3 ELSE 6 END, '0') END WHEN 'TIME' THEN regexp_replace(CAST(v AS VARCHAR), '\.[0-9]+$', '') || CASE WHEN regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1) = '' THEN '' ELSE '.' || rpad(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1), CASE WHEN length(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1)) <= 3 THEN 3 ELSE 6 END, '0') END ELSE CAST(v AS VARCHAR) END END)[1] || ' causes overflow') ELSE ($__now - INTERVAL (1) HOUR) END
    WHEN $interval = 'daily' THEN CASE WHEN ($__now - INTERVAL (7) DAY) < TIMESTAMP '0001-01-01 00:00:00' OR ($__now - INTERVAL (7) DAY) > TIMESTAMP '9999-12-31 23:59:59.999999' THEN error('Subtracting 7 DAY from timestamp ' || list_transform([$__now], v -> CASE WHEN starts_with(typeof(v), 'DECIMAL') THEN regexp_replace(CAST(v AS VARCHAR), '(\.[0-9]*[1-9])0+$|\.0+$', '\1') ELSE CASE typeof(v) WHEN 'DOUBLE' THEN CASE WHEN isnan(CAST(CAST(v AS VARCHAR) AS DOUBLE)) OR isinf(CAST(CAST(v AS VARCHAR) AS DOUBLE)) THEN CAST(v AS VARCHAR) WHEN CAST(CAST(v AS VARCHAR) AS DOUBLE) = 0 THEN '0' ELSE CASE WHEN CAST(printf('%.15g', CAST(CAST(v AS VARCHAR) AS DOUBLE)) AS DOUBLE) = CAST(CAST(v AS VARCHAR) AS DOUBLE) THEN printf('%.15g', CAST(CAST(v AS VARCHAR) AS DOUBLE)) ELSE printf('%.17g', CAST(CAST(v AS VARCHAR) AS DOUBLE)) END END WHEN 'TIMESTAMP' THEN regexp_replace(CAST(v AS VARCHAR), '\.[0-9]+$', '') || CASE WHEN regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1) = '' THEN '' ELSE '.' || rpad(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1), CASE WHEN length(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1)) <= 3 THEN 3 ELSE 6 END, '0') END || '+00' WHEN 'TIMESTAMP_NS' THEN regexp_replace(CAST(v AS VARCHAR), '\.[0-9]+$', '') || CASE WHEN regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1) = '' THEN '' ELSE '.' || rpad(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1), CASE WHEN length(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1)) <= 3 THEN 3 ELSE 6 END, '0') END WHEN 'TIME' THEN regexp_replace(CAST(v AS VARCHAR), '\.[0-9]+$', '') || CASE WHEN regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1) = '' THEN '' ELSE '.' || rpad(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1), CASE WHEN length(regexp_extract(CAST(v AS VARCHAR), '\.([0-9]+)$', 1)) <= 3 THEN 3 ELSE 6 END, '0') END ELSE CAST(v AS VARCHAR) END END)[1] || ' causes overflow') ELSE ($__now - INTERVAL (7) DAY) END
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
