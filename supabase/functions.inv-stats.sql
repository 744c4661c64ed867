-- functions.inv-stats (the name older Studio pages call): per time bucket, the invocations of one edge function by status class
-- and their execution time, from the relay records (deno-relay-logs).
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
  countif(status_code between 200 and 299) as success_count,
  countif(status_code between 300 and 399) as redirect_count,
  countif(status_code between 400 and 499) as client_err_count,
  countif(status_code >= 500) as server_err_count,
  avg(execution_time_ms) as avg_execution_time,
  max(execution_time_ms) as max_execution_time,
from invocations
group by bucket
order by bucket asc
