import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from './latency-histogram.ts';

describe('LatencyHistogram', () => {
  it('writes cumulative buckets, +Inf, sum and count per method, route and status class', () => {
    const h = new LatencyHistogram('t_seconds', 'Time to answer', [0.01, 0.1, 1]);
    h.observe('GET', '/a/:x', 200, 0.005);
    h.observe('GET', '/a/:x', 204, 0.01); // on a bound: counted in it (le)
    h.observe('GET', '/a/:x', 200, 0.5);
    h.observe('GET', '/a/:x', 404, 2);
    h.observe('POST', '/b', 500, 0.05);
    expect(h.exposition()).toBe(
      [
        '# HELP t_seconds Time to answer',
        '# TYPE t_seconds histogram',
        't_seconds_bucket{method="GET",route="/a/:x",status_class="2xx",le="0.01"} 2',
        't_seconds_bucket{method="GET",route="/a/:x",status_class="2xx",le="0.1"} 2',
        't_seconds_bucket{method="GET",route="/a/:x",status_class="2xx",le="1"} 3',
        't_seconds_bucket{method="GET",route="/a/:x",status_class="2xx",le="+Inf"} 3',
        't_seconds_sum{method="GET",route="/a/:x",status_class="2xx"} 0.515',
        't_seconds_count{method="GET",route="/a/:x",status_class="2xx"} 3',
        't_seconds_bucket{method="GET",route="/a/:x",status_class="4xx",le="0.01"} 0',
        't_seconds_bucket{method="GET",route="/a/:x",status_class="4xx",le="0.1"} 0',
        't_seconds_bucket{method="GET",route="/a/:x",status_class="4xx",le="1"} 0',
        't_seconds_bucket{method="GET",route="/a/:x",status_class="4xx",le="+Inf"} 1',
        't_seconds_sum{method="GET",route="/a/:x",status_class="4xx"} 2',
        't_seconds_count{method="GET",route="/a/:x",status_class="4xx"} 1',
        't_seconds_bucket{method="POST",route="/b",status_class="5xx",le="0.01"} 0',
        't_seconds_bucket{method="POST",route="/b",status_class="5xx",le="0.1"} 1',
        't_seconds_bucket{method="POST",route="/b",status_class="5xx",le="1"} 1',
        't_seconds_bucket{method="POST",route="/b",status_class="5xx",le="+Inf"} 1',
        't_seconds_sum{method="POST",route="/b",status_class="5xx"} 0.05',
        't_seconds_count{method="POST",route="/b",status_class="5xx"} 1',
        '',
      ].join('\n'),
    );
  });

  it('escapes label values and help text as the exposition format requires', () => {
    const h = new LatencyHistogram('t', 'a \\ b\nc', [1]);
    h.observe('GET', 'un"matched\\\n', 200, 0);
    const text = h.exposition();
    expect(text).toContain('# HELP t a \\\\ b\\nc\n');
    expect(text).toContain('t_count{method="GET",route="un\\"matched\\\\\\n",status_class="2xx"} 1');
  });

  it('writes only its HELP and TYPE before the first request', () => {
    expect(new LatencyHistogram('t', 'h', [1]).exposition()).toBe('# HELP t h\n# TYPE t histogram\n');
  });
});
