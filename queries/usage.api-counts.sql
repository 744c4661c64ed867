-- usage.api-counts: time-bucketed counts of API requests per API area.
-- @project is a regular expression matched against the request url (RE2 on both engines).
with requests as (
  select
    case
      when @interval = 'minutely' then timestamp_trunc(t.timestamp, minute)
      when @interval = 'hourly' then timestamp_trunc(t.timestamp, hour)
      when @interval = 'daily' then timestamp_trunc(t.timestamp, day)
    end as bucket,
    regexp_contains(request.path, '/rest') as is_rest,
    regexp_contains(request.path, '/storage') as is_storage,
    regexp_contains(request.path, '/auth') as is_auth,
    regexp_contains(request.path, '/realtime') as is_realtime,
  from `cloudflare.logs.prod` as t
  cross join unnest(t.metadata) as m
  cross join unnest(m.request) as request
  where regexp_contains(request.url, @project)
    and t.timestamp >= case
      when @interval = 'minutely' then timestamp_sub(current_timestamp(), interval 60 minute)
      when @interval = 'hourly' then timestamp_sub(current_timestamp(), interval 1 hour)
      when @interval = 'daily' then timestamp_sub(current_timestamp(), interval 7 day)
    end
),
counts as (
  select
    bucket,
    countif(is_rest) as total_rest_requests,
    countif(is_storage) as total_storage_requests,
    countif(is_auth) as total_auth_requests,
    countif(is_realtime) as total_realtime_requests,
  from requests
  group by bucket
)
select
  datetime(bucket, 'UTC') as timestamp,
  coalesce(sum(total_rest_requests), 0) as total_rest_requests,
  coalesce(sum(total_storage_requests), 0) as total_storage_requests,
  coalesce(sum(total_auth_requests), 0) as total_auth_requests,
  coalesce(sum(total_realtime_requests), 0) as total_realtime_requests,
from counts
group by timestamp
order by timestamp asc
