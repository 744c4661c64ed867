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
    WHEN $project_tier = 'FREE' THEN ($__now - INTERVAL (1) DAY)
    WHEN $project_tier = 'PRO' THEN ($__now - INTERVAL (7) DAY)
    WHEN $project_tier = 'PAYG' THEN ($__now - INTERVAL (90) DAY)
    WHEN $project_tier = 'ENTERPRISE' THEN ($__now - INTERVAL (90) DAY)
    ELSE ($__now - INTERVAL (1) DAY)
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
