WITH "edge_logs" AS (
  SELECT
    "t"."timestamp",
    "t"."id",
    "t"."event_message",
    "t"."metadata"
  FROM "cloudflare.logs.prod" AS "t"
  WHERE ("t"."project" = $project AND CASE
    WHEN coalesce($iso_timestamp_start, '') = '' THEN TRUE
    ELSE "t"."timestamp" > CAST(CAST($iso_timestamp_start AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND CASE
    WHEN coalesce($iso_timestamp_end, '') = '' THEN TRUE
    ELSE "t"."timestamp" <= CAST(CAST($iso_timestamp_end AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND "t"."timestamp" > (CASE
    WHEN $project_tier = 'FREE' THEN CASE WHEN ($__now - INTERVAL (1) DAY) < TIMESTAMP '0001-01-01 00:00:00' OR ($__now - INTERVAL (1) DAY) > TIMESTAMP '9999-12-31 23:59:59.999999' THEN error('BQ: Subtracting 1 DAY from timestamp ' || list_transform([CAST($__now AS TIMESTAMP)], v -> strftime(v, '%Y-%m-%d %H:%M:%S') || CASE WHEN microsecond(v) % 1000000 = 0 THEN '' WHEN microsecond(v) % 1000 = 0 THEN strftime(v, '.%g') ELSE strftime(v, '.%f') END || '+00')[1] || ' causes overflow') ELSE ($__now - INTERVAL (1) DAY) END
    WHEN $project_tier = 'PRO' THEN CASE WHEN ($__now - INTERVAL (7) DAY) < TIMESTAMP '0001-01-01 00:00:00' OR ($__now - INTERVAL (7) DAY) > TIMESTAMP '9999-12-31 23:59:59.999999' THEN error('BQ: Subtracting 7 DAY from timestamp ' || list_transform([CAST($__now AS TIMESTAMP)], v -> strftime(v, '%Y-%m-%d %H:%M:%S') || CASE WHEN microsecond(v) % 1000000 = 0 THEN '' WHEN microsecond(v) % 1000 = 0 THEN strftime(v, '.%g') ELSE strftime(v, '.%f') END || '+00')[1] || ' causes overflow') ELSE ($__now - INTERVAL (7) DAY) END
    WHEN $project_tier = 'PAYG' THEN CASE WHEN ($__now - INTERVAL (90) DAY) < TIMESTAMP '0001-01-01 00:00:00' OR ($__now - INTERVAL (90) DAY) > TIMESTAMP '9999-12-31 23:59:59.999999' THEN error('BQ: Subtracting 90 DAY from timestamp ' || list_transform([CAST($__now AS TIMESTAMP)], v -> strftime(v, '%Y-%m-%d %H:%M:%S') || CASE WHEN microsecond(v) % 1000000 = 0 THEN '' WHEN microsecond(v) % 1000 = 0 THEN strftime(v, '.%g') ELSE strftime(v, '.%f') END || '+00')[1] || ' causes overflow') ELSE ($__now - INTERVAL (90) DAY) END
    WHEN $project_tier = 'ENTERPRISE' THEN CASE WHEN ($__now - INTERVAL (90) DAY) < TIMESTAMP '0001-01-01 00:00:00' OR ($__now - INTERVAL (90) DAY) > TIMESTAMP '9999-12-31 23:59:59.999999' THEN error('BQ: Subtracting 90 DAY from timestamp ' || list_transform([CAST($__now AS TIMESTAMP)], v -> strftime(v, '%Y-%m-%d %H:%M:%S') || CASE WHEN microsecond(v) % 1000000 = 0 THEN '' WHEN microsecond(v) % 1000 = 0 THEN strftime(v, '.%g') ELSE strftime(v, '.%f') END || '+00')[1] || ' causes overflow') ELSE ($__now - INTERVAL (90) DAY) END
    ELSE CASE WHEN ($__now - INTERVAL (1) DAY) < TIMESTAMP '0001-01-01 00:00:00' OR ($__now - INTERVAL (1) DAY) > TIMESTAMP '9999-12-31 23:59:59.999999' THEN error('BQ: Subtracting 1 DAY from timestamp ' || list_transform([CAST($__now AS TIMESTAMP)], v -> strftime(v, '%Y-%m-%d %H:%M:%S') || CASE WHEN microsecond(v) % 1000000 = 0 THEN '' WHEN microsecond(v) % 1000 = 0 THEN strftime(v, '.%g') ELSE strftime(v, '.%f') END || '+00')[1] || ' causes overflow') ELSE ($__now - INTERVAL (1) DAY) END
  END))
    AND "t"."metadata" IS NOT NULL
)
SELECT
  "id",
  "timestamp",
  "event_message",
  "metadata"
FROM "edge_logs"
ORDER BY "timestamp" DESC, "id"
LIMIT 100
