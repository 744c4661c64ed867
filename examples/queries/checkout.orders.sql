-- checkout.orders: the newest checkout events of a project from the example's own source,
-- optionally only those of one status, with the amount at or above a minimum.
select
  t.timestamp,
  m.order_id,
  m.status,
  m.amount_cents,
  t.metadata,
from `checkout.events` as t
cross join unnest(t.metadata) as m
where t.project = @project
  and (coalesce(@status, '') = '' or m.status = @status)
  and m.amount_cents >= coalesce(@min_amount_cents, 0)
order by t.timestamp desc, m.order_id
limit 100
