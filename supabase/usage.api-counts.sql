-- usage.api-counts for Supabase Studio's project home page: per time bucket, the edge requests
-- of @project per API area. Studio sends @interval 1hr, 1day or 7day; Logflare's own three
-- (minutely, hourly, daily: Logflare priv/supabase/endpoints/usage.api-counts.sql at e9444de)
-- keep their windows. The project is the record's `project`, which self-hosted Supabase's Vector
-- sets on every Kong line; Logflare's query matches it in `request.url`, which Kong's lines lack.
with requests as (
  select
    case
      when @interval in ('minutely', '1hr') then timestamp_trunc(t.timestamp, minute)
      when @interval in ('hourly', '1day') then timestamp_trunc(t.timestamp, hour)
      when @interval in ('daily', '7day') then timestamp_trunc(t.timestamp, day)
    end as bucket,
    regexp_contains(request.path, '/rest') as is_rest,
    regexp_contains(request.path, '/storage') as is_storage,
    regexp_contains(request.path, '/auth') as is_auth,
    regexp_contains(request.path, '/realtime') as is_realtime,
  from `cloudflare.logs.prod` as t
  cross join unnest(t.metadata) as m
  cross join unnest(m.request) as request
  where t.project = @project
    and t.timestamp >= case
      when @interval = 'minutely' then timestamp_sub(current_timestamp(), interval 60 minute)
      when @interval = 'hourly' then timestamp_sub(current_timestamp(), interval 1 hour)
      when @interval = 'daily' then timestamp_sub(current_timestamp(), interval 7 day)
      when @interval = '1hr' then timestamp_sub(current_timestamp(), interval 1 hour)
      when @interval = '1day' then timestamp_sub(current_timestamp(), interval 1 day)
      when @interval = '7day' then timestamp_sub(current_timestamp(), interval 7 day)
    end
)
select
  datetime(bucket, 'UTC') as timestamp,
  countif(is_rest) as total_rest_requests,
  countif(is_storage) as total_storage_requests,
  countif(is_auth) as total_auth_requests,
  countif(is_realtime) as total_realtime_requests,
from requests
group by bucket
order by bucket asc
