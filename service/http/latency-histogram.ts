// Request latency as a Prometheus histogram, counted here and written in the text exposition
// format at scrape time. prom-client's Histogram validates its labels and builds a key string from
// them on every observe(): on a balance request that was about a sixth of the service's
// throughput in the bench. Here a series is found by two Map lookups on strings V8 has already
// hashed (the route pattern and the method) and counted with array increments.

interface Series {
  /** Observations per bucket, not cumulative; the last slot is above every bound (+Inf). */
  counts: number[];
  sum: number;
  count: number;
}

export class LatencyHistogram {
  // route pattern -> method -> status class (1..5) -> series
  private readonly series = new Map<string, Map<string, Series[]>>();

  constructor(
    private readonly name: string,
    private readonly help: string,
    /** Upper bounds in seconds, ascending. */
    private readonly bounds: readonly number[],
  ) {}

  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.series.get(route);
    if (!byMethod) {
      byMethod = new Map();
      this.series.set(route, byMethod);
    }
    let byClass = byMethod.get(method);
    if (!byClass) {
      byClass = [];
      byMethod.set(method, byClass);
    }
    const statusClass = Math.floor(status / 100);
    const s = (byClass[statusClass] ??= { counts: new Array<number>(this.bounds.length + 1).fill(0), sum: 0, count: 0 });
    let bucket = 0;
    while (bucket < this.bounds.length && seconds > this.bounds[bucket]!) bucket++;
    s.counts[bucket]!++;
    s.sum += seconds;
    s.count++;
  }

  /** The metric in Prometheus' text format (version 0.0.4), ending with a newline. */
  exposition(): string {
    const lines = [`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} histogram`];
    for (const [route, byMethod] of this.series) {
      for (const [method, byClass] of byMethod) {
        byClass.forEach((s, statusClass) => {
          const labels = `method="${escapeLabel(method)}",route="${escapeLabel(route)}",status_class="${statusClass}xx"`;
          let cumulative = 0;
          this.bounds.forEach((bound, i) => {
            cumulative += s.counts[i]!;
            lines.push(`${this.name}_bucket{${labels},le="${bound}"} ${cumulative}`);
          });
          lines.push(`${this.name}_bucket{${labels},le="+Inf"} ${s.count}`);
          lines.push(`${this.name}_sum{${labels}} ${s.sum}`);
          lines.push(`${this.name}_count{${labels}} ${s.count}`);
        });
      }
    }
    return `${lines.join('\n')}\n`;
  }
}

function escapeLabel(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

function escapeHelp(text: string): string {
  return text.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\'));
}
