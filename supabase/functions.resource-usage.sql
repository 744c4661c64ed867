-- functions.resource-usage: per time bucket with invocations of one edge function (relay records,
-- deno-relay-logs), its CPU time and memory.
with invocations as (
  select
    case
      when @interval in ('5min', '15min', '1hr', '3hr') then timestamp_trunc(t.timestamp, minute)
      when @interval = '1day' then timestamp_trunc(t.timestamp, hour)
      when @interval = '7day' then timestamp_trunc(t.timestamp, day)
    end as bucket,
    response.status_code,
    m.execution_time_ms,
  from `deno-relay-logs` as t
  cross join unnest(t.metadata) as m
  cross join unnest(m.response) as response
  where m.project_ref = @project
    and m.function_id = @function_id
    and t.timestamp >= case
      when @interval = '5min' then timestamp_sub(current_timestamp(), interval 5 minute)
      when @interval = '15min' then timestamp_sub(current_timestamp(), interval 15 minute)
      when @interval = '1hr' then timestamp_sub(current_timestamp(), interval 1 hour)
      when @interval = '3hr' then timestamp_sub(current_timestamp(), interval 3 hour)
      when @interval = '1day' then timestamp_sub(current_timestamp(), interval 1 day)
      when @interval = '7day' then timestamp_sub(current_timestamp(), interval 7 day)
    end
)
select
  datetime(bucket, 'UTC') as timestamp,
  -- Self-hosted function logs carry no CPU or memory figures: NULL, which Studio shows as 0.
  cast(null as float64) as avg_cpu_time_used,
  cast(null as float64) as max_cpu_time_used,
  cast(null as float64) as avg_memory_used,
  cast(null as float64) as avg_heap_memory_used,
  cast(null as float64) as avg_external_memory_used,
from invocations
group by bucket
order by bucket asc
