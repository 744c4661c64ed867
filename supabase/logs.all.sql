-- logs.all as self-hosted Logflare seeds it (Logflare priv/supabase/endpoints/logs.all.sql at
-- e9444de): a sandboxed query whose nine CTEs (and auth_audit_logs, below) are the tables the Logs Explorer's SQL may read,
-- each the records of @project after @iso_timestamp_start (exclusive) and at or before
-- @iso_timestamp_end (inclusive), either bound left empty to mean none. Each CTE finds the
-- project where self-hosted Supabase's Vector config puts it. Without caller SQL, the newest
-- 100 edge records.
with edge_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from `cloudflare.logs.prod` as t
  cross join unnest(t.metadata) as m
  where t.project = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
),
postgres_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from `postgres.logs` as t
  where t.project = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
),
function_edge_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from `deno-relay-logs` as t
  cross join unnest(t.metadata) as m
  where m.project_ref = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
),
function_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from `deno-subhosting-events` as t
  cross join unnest(t.metadata) as m
  where m.project_ref = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
),
auth_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from `gotrue.logs.prod` as t
  cross join unnest(t.metadata) as m
  where t.project = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
),
-- Studio's "Auth Audit Logs" template reads auth_audit_logs: GoTrue's audit lines, the auth
-- records whose metadata carries an auth_event (self-hosted Vector sends them with the rest of
-- GoTrue's lines to gotrue.logs.prod), with the columns every other CTE has.
auth_audit_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from `gotrue.logs.prod` as t
  cross join unnest(t.metadata) as m
  cross join unnest(m.auth_event) as audit
  where t.project = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
),
realtime_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from `realtime.logs.prod` as t
  cross join unnest(t.metadata) as m
  where m.project = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
),
storage_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from `storage.logs.prod.2` as t
  cross join unnest(t.metadata) as m
  where m.project = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
),
postgrest_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from `postgREST.logs.prod` as t
  cross join unnest(t.metadata) as m
  where t.project = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
),
pgbouncer_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from `pgbouncer.logs.prod` as t
  cross join unnest(t.metadata) as m
  where t.project = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
)
-- Logflare orders inside each CTE and leaves the final SELECT unordered; newest first here,
-- id breaking ties, so the 100-row cap keeps the newest records deterministically.
select id, timestamp, event_message, metadata
from edge_logs
order by timestamp desc, id
limit 100
