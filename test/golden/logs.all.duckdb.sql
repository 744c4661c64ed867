WITH "retention" AS (
  SELECT
    CASE
      WHEN $project_tier = 'FREE' THEN ($__now - INTERVAL (1) DAY)
      WHEN $project_tier = 'PRO' THEN ($__now - INTERVAL (7) DAY)
      WHEN $project_tier = 'PAYG' THEN ($__now - INTERVAL (90) DAY)
      WHEN $project_tier = 'ENTERPRISE' THEN ($__now - INTERVAL (90) DAY)
      ELSE ($__now - INTERVAL (1) DAY)
    END AS "date"
),
"edge_logs" AS (
  SELECT
    "t"."timestamp",
    "t"."id",
    "t"."event_message",
    "t"."metadata"
  FROM "retention",
    "cloudflare.logs.prod" AS "t"
  WHERE ("t"."project" = $project AND CASE
    WHEN coalesce($iso_timestamp_start, '') = '' THEN TRUE
    ELSE "t"."timestamp" > CAST(CAST($iso_timestamp_start AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND CASE
    WHEN coalesce($iso_timestamp_end, '') = '' THEN TRUE
    ELSE "t"."timestamp" <= CAST(CAST($iso_timestamp_end AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND "t"."timestamp" > "retention"."date")
    AND "t"."metadata" IS NOT NULL
),
"postgres_logs" AS (
  SELECT
    "t"."timestamp",
    "t"."id",
    "t"."event_message",
    "t"."metadata"
  FROM "retention",
    "postgres.logs" AS "t"
  WHERE ("t"."project" = $project AND CASE
    WHEN coalesce($iso_timestamp_start, '') = '' THEN TRUE
    ELSE "t"."timestamp" > CAST(CAST($iso_timestamp_start AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND CASE
    WHEN coalesce($iso_timestamp_end, '') = '' THEN TRUE
    ELSE "t"."timestamp" <= CAST(CAST($iso_timestamp_end AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND "t"."timestamp" > "retention"."date")
    AND "t"."metadata" IS NOT NULL
),
"function_edge_logs" AS (
  SELECT
    "t"."timestamp",
    "t"."id",
    "t"."event_message",
    "t"."metadata"
  FROM "retention",
    "deno-relay-logs" AS "t"
  WHERE ("t"."metadata"."project_ref" = $project AND CASE
    WHEN coalesce($iso_timestamp_start, '') = '' THEN TRUE
    ELSE "t"."timestamp" > CAST(CAST($iso_timestamp_start AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND CASE
    WHEN coalesce($iso_timestamp_end, '') = '' THEN TRUE
    ELSE "t"."timestamp" <= CAST(CAST($iso_timestamp_end AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND "t"."timestamp" > "retention"."date")
    AND "t"."metadata" IS NOT NULL
),
"function_logs" AS (
  SELECT
    "t"."timestamp",
    "t"."id",
    "t"."event_message",
    "t"."metadata"
  FROM "retention",
    "deno-subhosting-events" AS "t"
  WHERE ("t"."metadata"."project_ref" = $project AND CASE
    WHEN coalesce($iso_timestamp_start, '') = '' THEN TRUE
    ELSE "t"."timestamp" > CAST(CAST($iso_timestamp_start AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND CASE
    WHEN coalesce($iso_timestamp_end, '') = '' THEN TRUE
    ELSE "t"."timestamp" <= CAST(CAST($iso_timestamp_end AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND "t"."timestamp" > "retention"."date")
    AND "t"."metadata" IS NOT NULL
),
"auth_logs" AS (
  SELECT
    "t"."timestamp",
    "t"."id",
    "t"."event_message",
    "t"."metadata"
  FROM "retention",
    "gotrue.logs.prod" AS "t"
  WHERE ("t"."project" = $project AND CASE
    WHEN coalesce($iso_timestamp_start, '') = '' THEN TRUE
    ELSE "t"."timestamp" > CAST(CAST($iso_timestamp_start AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND CASE
    WHEN coalesce($iso_timestamp_end, '') = '' THEN TRUE
    ELSE "t"."timestamp" <= CAST(CAST($iso_timestamp_end AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND "t"."timestamp" > "retention"."date")
    AND "t"."metadata" IS NOT NULL
),
"realtime_logs" AS (
  SELECT
    "t"."timestamp",
    "t"."id",
    "t"."event_message",
    "t"."metadata"
  FROM "retention",
    "realtime.logs.prod" AS "t"
  WHERE ("t"."project" = $project AND CASE
    WHEN coalesce($iso_timestamp_start, '') = '' THEN TRUE
    ELSE "t"."timestamp" > CAST(CAST($iso_timestamp_start AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND CASE
    WHEN coalesce($iso_timestamp_end, '') = '' THEN TRUE
    ELSE "t"."timestamp" <= CAST(CAST($iso_timestamp_end AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND "t"."timestamp" > "retention"."date")
    AND "t"."metadata" IS NOT NULL
),
"storage_logs" AS (
  SELECT
    "t"."timestamp",
    "t"."id",
    "t"."event_message",
    "t"."metadata"
  FROM "retention",
    "storage.logs.prod.2" AS "t"
  WHERE ("t"."project" = $project AND CASE
    WHEN coalesce($iso_timestamp_start, '') = '' THEN TRUE
    ELSE "t"."timestamp" > CAST(CAST($iso_timestamp_start AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND CASE
    WHEN coalesce($iso_timestamp_end, '') = '' THEN TRUE
    ELSE "t"."timestamp" <= CAST(CAST($iso_timestamp_end AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND "t"."timestamp" > "retention"."date")
    AND "t"."metadata" IS NOT NULL
),
"postgrest_logs" AS (
  SELECT
    "t"."timestamp",
    "t"."id",
    "t"."event_message",
    "t"."metadata"
  FROM "retention",
    "postgREST.logs.prod" AS "t"
  WHERE ("t"."project" = $project AND CASE
    WHEN coalesce($iso_timestamp_start, '') = '' THEN TRUE
    ELSE "t"."timestamp" > CAST(CAST($iso_timestamp_start AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND CASE
    WHEN coalesce($iso_timestamp_end, '') = '' THEN TRUE
    ELSE "t"."timestamp" <= CAST(CAST($iso_timestamp_end AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND "t"."timestamp" > "retention"."date")
    AND "t"."metadata" IS NOT NULL
),
"pgbouncer_logs" AS (
  SELECT
    "t"."timestamp",
    "t"."id",
    "t"."event_message",
    "t"."metadata"
  FROM "retention",
    "pgbouncer.logs.prod" AS "t"
  WHERE ("t"."project" = $project AND CASE
    WHEN coalesce($iso_timestamp_start, '') = '' THEN TRUE
    ELSE "t"."timestamp" > CAST(CAST($iso_timestamp_start AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND CASE
    WHEN coalesce($iso_timestamp_end, '') = '' THEN TRUE
    ELSE "t"."timestamp" <= CAST(CAST($iso_timestamp_end AS TIMESTAMPTZ) AS TIMESTAMP)
  END AND "t"."timestamp" > "retention"."date")
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
