-- Sessions by the source and medium event parameters of entrance page views (the raw,
-- unprocessed traffic source; see the page cited in the YAML).
SELECT 
DISTINCT
(select value.string_value from unnest(event_params) where key = 'source')  AS source, 
(select value.string_value from unnest(event_params) where key = 'medium')  AS medium,
count(distinct(concat(user_pseudo_id,'.',
(select cast(value.int_value as string) from unnest(event_params) where key = 'ga_session_id')))) AS session_count
 FROM `my-project.analytics_123456.events_20201202` 
 WHERE event_name = 'page_view'
 AND (select value.int_value from unnest(event_params) where key = 'entrances') =1 
 GROUP BY 1,2
 ORDER BY 3 DESC
 ;
