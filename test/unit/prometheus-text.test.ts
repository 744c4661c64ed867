import { describe, expect, it } from 'vitest';
import { QuerygateError } from '../../src/errors.js';
import { HistogramCounts } from '../../src/metrics/counted-families.js';
import { createMetrics } from '../../src/metrics/metrics.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';

// The strict reader the metrics tests rely on refuses what Prometheus would, and the metrics'
// own histograms bucket as Prometheus defines it: `le` is an inclusive upper bound.

describe('the Prometheus text reader of the tests', () => {
  const valid = [
    '# HELP a_total Things.',
    '# TYPE a_total counter',
    'a_total{x="1",y="q\\"uote"} 3',
    '# TYPE h histogram',
    'h_bucket{le="1"} 1',
    'h_bucket{le="+Inf"} 2',
    'h_sum 3.5',
    'h_count 2',
    '',
  ].join('\n');

  it('reads families, labels with escapes and values', () => {
    const families = parsePrometheusText(valid);
    expect([...families.keys()]).toEqual(['a_total', 'h']);
    expect(sampleValue(families, 'a_total', { y: 'q"uote' })).toBe(3);
    expect(sampleValue(families, 'h_bucket', { le: '+Inf' })).toBe(2);
  });

  it.each([
    ['a family typed twice', `${valid}# TYPE a_total counter\n`],
    ['a sample of no typed family', `${valid}b 1\n`],
    ['a sample without a value', valid.replace('h_sum 3.5', 'h_sum')],
    ['a value that is not a number', valid.replace('h_sum 3.5', 'h_sum three')],
    ['an unquoted label value', valid.replace('x="1"', 'x=1')],
    ['an unknown type', valid.replace('counter', 'meter')],
    ['a suffix the type has not', valid.replace('a_total{', 'a_total_count{')],
    ['no final line feed', valid.slice(0, -1)],
  ])('refuses %s', (_what, text) => {
    expect(() => parsePrometheusText(text)).toThrow();
  });
});

describe('metric histograms', () => {
  it('counts a value equal to a bound in that bound’s bucket, cumulatively, with sum and count', () => {
    const histogram = new HistogramCounts([0.1, 1]);
    for (const value of [0.05, 0.1, 0.5, 1, 7]) histogram.observe(value);
    expect(histogram.samples('h', { e: 'x' })).toEqual([
      { metricName: 'h_bucket', labels: { e: 'x', le: '0.1' }, value: 2 },
      { metricName: 'h_bucket', labels: { e: 'x', le: '1' }, value: 4 },
      { metricName: 'h_bucket', labels: { e: 'x', le: '+Inf' }, value: 5 },
      { metricName: 'h_sum', labels: { e: 'x' }, value: 8.65 },
      { metricName: 'h_count', labels: { e: 'x' }, value: 5 },
    ]);
  });

  it('leaves a gauge without a figure out of the exposition rather than reporting 0', async () => {
    const families = parsePrometheusText(await createMetrics({ storeBytes: () => undefined }).exposition());
    expect(families.get('querygate_store_bytes')?.samples).toEqual([]);
    const withStore = parsePrometheusText(await createMetrics({ storeBytes: () => 1234 }).exposition());
    expect(sampleValue(withStore, 'querygate_store_bytes')).toBe(1234);
  });

  it('keeps two servers’ counts apart', async () => {
    const one = createMetrics();
    const other = createMetrics();
    one.endpoint('e').answered('rest', 'hit', performance.now());
    const requests = 'querygate_endpoint_requests_total';
    expect(sampleValue(parsePrometheusText(await one.exposition()), requests, { cache: 'hit' })).toBe(1);
    expect(sampleValue(parsePrometheusText(await other.exposition()), requests, { cache: 'hit' })).toBe(0);
  });
});

describe('endpoint counts', () => {
  it('counts an error under its REST status with cache none, and ENGINE_BUSY and ENGINE_TIMEOUT as refusals', async () => {
    const metrics = createMetrics();
    const counts = metrics.endpoint('e');
    const startedAt = performance.now();
    counts.failed('rest', new QuerygateError('ENGINE_BUSY', 'busy'), startedAt);
    counts.failed('graphql', new QuerygateError('ENGINE_TIMEOUT', 'late'), startedAt);
    counts.failed('rest', new QuerygateError('BAD_PARAMETER', 'bad'), startedAt);
    counts.failed('rest', new Error('unexpected'), startedAt);
    const families = parsePrometheusText(await metrics.exposition());
    const requests = 'querygate_endpoint_requests_total';
    expect(sampleValue(families, requests, { face: 'rest', status: '503', cache: 'none' })).toBe(1);
    expect(sampleValue(families, requests, { face: 'graphql', status: '504', cache: 'none' })).toBe(1);
    expect(sampleValue(families, requests, { face: 'rest', status: '400', cache: 'none' })).toBe(1);
    expect(sampleValue(families, requests, { face: 'rest', status: '500', cache: 'none' })).toBe(1);
    const refusals = 'querygate_engine_refusals_total';
    expect(sampleValue(families, refusals, { endpoint: 'e', code: 'ENGINE_BUSY' })).toBe(1);
    expect(sampleValue(families, refusals, { endpoint: 'e', code: 'ENGINE_TIMEOUT' })).toBe(1);
    expect(families.get(refusals)?.samples).toHaveLength(2);
    expect(sampleValue(families, 'querygate_endpoint_request_duration_seconds_count', { face: 'rest' })).toBe(
      3,
    );
  });
});
