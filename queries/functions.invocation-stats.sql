-- functions.invocation-stats: time-bucketed statistics of edge-function invocations.
-- The bucket series comes from generate_timestamp_trunc_array (queries/udf/); relay records join
-- it on their truncated time, so every bucket has a row, with count 0 where nothing ran.
with dates as (
  select
    case
      when @interval = '5min' then generate_timestamp_trunc_array(5, 'minute_second')
      when @interval = '15min' then generate_timestamp_trunc_array(15, 'minute_minute')
      when @interval = '1hr' then generate_timestamp_trunc_array(1, 'hour_minute')
      when @interval = '1day' then generate_timestamp_trunc_array(1, 'day_hour')
      when @interval = '7day' then generate_timestamp_trunc_array(7, 'day_day')
      else generate_timestamp_trunc_array(1, 'day_hour')
    end as timestamps
),
buckets as (
  select bucket
  from dates
  cross join unnest(dates.timestamps) as bucket
),
invocations as (
  select
    case
      when @interval = '5min' then timestamp_trunc(t.timestamp, second)
      when @interval = '15min' then timestamp_trunc(t.timestamp, minute)
      when @interval = '1hr' then timestamp_trunc(t.timestamp, minute)
      when @interval = '7day' then timestamp_trunc(t.timestamp, day)
      else timestamp_trunc(t.timestamp, hour)
    end as bucket,
    m.execution_time_ms,
    response.status_code,
  from `deno-relay-logs` as t
  cross join unnest(t.metadata) as m
  left join unnest(m.response) as response on true
  where m.project_ref = @project
    and (coalesce(@function_id, '') = '' or m.function_id = @function_id)
    and t.timestamp >= (select dates.timestamps[offset(0)] from dates)
),
stats as (
  select
    buckets.bucket as timestamp,
    min(invocations.execution_time_ms) as min_execution_time,
    max(invocations.execution_time_ms) as max_execution_time,
    avg(invocations.execution_time_ms) as avg_execution_time,
    approx_quantiles(invocations.execution_time_ms, 100)[offset(95)] as p95_execution_time,
    approx_quantiles(invocations.execution_time_ms, 100)[offset(99)] as p99_execution_time,
    count(invocations.bucket) as count,
    countif(invocations.status_code >= 400) as error_count,
    countif(invocations.status_code between 100 and 199) as status_1xx,
    countif(invocations.status_code between 200 and 299) as status_2xx,
    countif(invocations.status_code between 300 and 399) as status_3xx,
    countif(invocations.status_code between 400 and 499) as status_4xx,
    countif(invocations.status_code between 500 and 599) as status_5xx,
  from buckets
  left join invocations on invocations.bucket = buckets.bucket
  group by buckets.bucket
)
-- The status-class counts are computed as in the original query but not returned (spec rule 7).
select
  timestamp,
  min_execution_time,
  max_execution_time,
  avg_execution_time,
  p95_execution_time,
  p99_execution_time,
  count,
  error_count,
from stats
order by timestamp asc
