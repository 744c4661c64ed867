-- logs.all: recent log records of a project.
-- Every source is defined with the same retention, time and project filters; only the edge
-- request logs are returned (see shared/spec/endpoint-interface.md, logs.all rules 1-5).
with retention as (
  select
    case
      when @project_tier = 'FREE' then timestamp_sub(current_timestamp(), interval 1 day)
      when @project_tier = 'PRO' then timestamp_sub(current_timestamp(), interval 7 day)
      when @project_tier = 'PAYG' then timestamp_sub(current_timestamp(), interval 90 day)
      when @project_tier = 'ENTERPRISE' then timestamp_sub(current_timestamp(), interval 90 day)
      else timestamp_sub(current_timestamp(), interval 1 day)
    end as date
),
edge_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from retention, `cloudflare.logs.prod` as t
  cross join unnest(t.metadata) as m
  where t.project = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
    and t.timestamp > retention.date
),
postgres_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from retention, `postgres.logs` as t
  cross join unnest(t.metadata) as m
  where t.project = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
    and t.timestamp > retention.date
),
function_edge_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from retention, `deno-relay-logs` as t
  cross join unnest(t.metadata) as m
  where m.project_ref = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
    and t.timestamp > retention.date
),
function_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from retention, `deno-subhosting-events` as t
  cross join unnest(t.metadata) as m
  where m.project_ref = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
    and t.timestamp > retention.date
),
auth_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from retention, `gotrue.logs.prod` as t
  cross join unnest(t.metadata) as m
  where t.project = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
    and t.timestamp > retention.date
),
realtime_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from retention, `realtime.logs.prod` as t
  cross join unnest(t.metadata) as m
  where t.project = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
    and t.timestamp > retention.date
),
storage_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from retention, `storage.logs.prod.2` as t
  cross join unnest(t.metadata) as m
  where t.project = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
    and t.timestamp > retention.date
),
postgrest_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from retention, `postgREST.logs.prod` as t
  cross join unnest(t.metadata) as m
  where t.project = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
    and t.timestamp > retention.date
),
pgbouncer_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from retention, `pgbouncer.logs.prod` as t
  cross join unnest(t.metadata) as m
  where t.project = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
    and t.timestamp > retention.date
)
-- The spec leaves the order open; newest first (id breaking ties) makes the 100-row cap keep
-- the most recent records and makes the answer deterministic.
select id, timestamp, event_message, metadata,
from edge_logs
order by timestamp desc, id
limit 100
