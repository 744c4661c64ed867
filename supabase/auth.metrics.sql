-- auth.metrics: the figures of Studio's Auth overview, for the current window of @interval and
-- the one before it: always two rows, `current` and `previous`, zeros where nothing happened.
-- GoTrue's audit events are read from its JSON log line, as Studio's auth report does.
with periods as (
  select
    'current' as period,
    case
      when @interval = '1hr' then timestamp_sub(current_timestamp(), interval 1 hour)
      when @interval = '1day' then timestamp_sub(current_timestamp(), interval 1 day)
      when @interval = '7day' then timestamp_sub(current_timestamp(), interval 7 day)
    end as period_start,
    current_timestamp() as period_end
  union all
  select
    'previous' as period,
    case
      when @interval = '1hr' then timestamp_sub(current_timestamp(), interval 2 hour)
      when @interval = '1day' then timestamp_sub(current_timestamp(), interval 2 day)
      when @interval = '7day' then timestamp_sub(current_timestamp(), interval 14 day)
    end as period_start,
    case
      when @interval = '1hr' then timestamp_sub(current_timestamp(), interval 1 hour)
      when @interval = '1day' then timestamp_sub(current_timestamp(), interval 1 day)
      when @interval = '7day' then timestamp_sub(current_timestamp(), interval 7 day)
    end as period_end
),
auth_events as (
  select
    p.period,
    count(distinct case
      when json_value(a.event_message, '$.auth_event.action') in (
        'login', 'user_signedup', 'token_refreshed', 'user_modified',
        'user_recovery_requested', 'user_reauthenticate_requested'
      ) then json_value(a.event_message, '$.auth_event.actor_id')
    end) as active_users,
    countif(json_value(a.event_message, '$.auth_event.action') = 'user_signedup') as sign_up_count,
    countif(json_value(a.event_message, '$.auth_event.action') = 'user_recovery_requested')
      as password_reset_requests,
  from periods as p
  left join `gotrue.logs.prod` as a
    on a.project = @project and a.timestamp > p.period_start and a.timestamp <= p.period_end
  group by p.period
),
requests as (
  select
    p.period,
    count(e.id) as api_total_requests,
    countif(e.status_code >= 400) as api_error_requests,
    countif(e.path like '%/auth/v1%') as auth_total_requests,
    countif(e.path like '%/auth/v1%' and e.status_code >= 400) as auth_total_errors,
  from periods as p
  left join (
    select t.id, t.timestamp, request.path, response.status_code
    from `cloudflare.logs.prod` as t
    cross join unnest(t.metadata) as m
    cross join unnest(m.request) as request
    cross join unnest(m.response) as response
    where t.project = @project
  ) as e
    on e.timestamp > p.period_start and e.timestamp <= p.period_end
  group by p.period
)
select
  a.period,
  a.active_users,
  r.api_error_requests,
  r.api_total_requests,
  r.auth_total_errors,
  r.auth_total_requests,
  a.password_reset_requests,
  a.sign_up_count,
from auth_events as a
join requests as r using (period)
order by a.period
