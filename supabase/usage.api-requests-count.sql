-- usage.api-requests-count: how many edge requests @project had in the last 7 days, one row.
-- Studio only asks whether the project has traffic (count > 0, once count > 25).
select count(*) as count
from `cloudflare.logs.prod` as t
where t.project = @project
  and t.timestamp >= timestamp_sub(current_timestamp(), interval 7 day)
