-- edge.error-rate: per request path, how many edge requests since a time answered with a status
-- at or above a threshold, and their share of all requests of that path.
select
  r.path as path,
  count(*) as requests,
  countif(s.status_code >= @min_status) as errors,
  countif(s.status_code >= @min_status) / count(*) as error_rate,
from `cloudflare.logs.prod` as t
cross join unnest(t.metadata) as m
cross join unnest(m.request) as r
cross join unnest(m.response) as s
where t.project = @project
  and t.timestamp >= @since
group by path
order by error_rate desc, path
