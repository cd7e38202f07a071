// Prometheus text-format metrics: request counts and latency histograms by route pattern (kept
// here as requests finish), and gauges read when scraped (open sockets, runs, queue, desktops).
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Histogram = { counts: number[]; sum: number; count: number };
/** One method of one route: its labels (escaped once), answers by status, and durations. */
type RouteStats = { labels: string; statuses: Map<number, number>; durations: Histogram };
/** A value read when scraped; type 'counter' for one that only grows (kept by its owner). */
export type Gauge = { name: string; help: string; type?: 'gauge' | 'counter'; read: () => number | Promise<number> };
/** Several values of one metric, each with its labels, read when scraped. */
export type Series = { name: string; help: string; type?: 'gauge' | 'counter'; read: () => Promise<{ labels: Record<string, string>; value: number }[]> };

export class Metrics {
  /** By route, then method: both are fixed strings, so finding a request's stats builds no key (it runs per request). */
  private routes = new Map<string, Map<string, RouteStats>>();
  private gauges: Gauge[] = [];
  private series: Series[] = [];

  /** One finished HTTP request; `route` is the pattern ('/agents/:id'), never the raw path. */
  observe(method: string, route: string, status: number, seconds: number): void {
    let methods = this.routes.get(route);
    if (!methods) this.routes.set(route, (methods = new Map()));
    let stats = methods.get(method);
    if (!stats) {
      const durations = { counts: BUCKETS.map(() => 0), sum: 0, count: 0 };
      methods.set(method, (stats = { labels: `method="${escape(method)}",route="${escape(route)}"`, statuses: new Map(), durations }));
    }
    stats.statuses.set(status, (stats.statuses.get(status) ?? 0) + 1);
    const h = stats.durations;
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]) h.counts[i]++;
    h.sum += seconds;
    h.count++;
  }

  gauge(gauge: Gauge): this {
    this.gauges.push(gauge);
    return this;
  }

  labeled(series: Series): this {
    this.series.push(series);
    return this;
  }

  async render(): Promise<string> {
    const out: string[] = [
      '# HELP aw_http_requests_total HTTP requests answered, by method, route pattern and status.',
      '# TYPE aw_http_requests_total counter',
    ];
    const all = [...this.routes.values()].flatMap((methods) => [...methods.values()]);
    for (const { labels, statuses } of all) for (const [status, n] of statuses) out.push(`aw_http_requests_total{${labels},status="${status}"} ${n}`);
    out.push('# HELP aw_http_request_duration_seconds Time from request to response end, by method and route pattern.');
    out.push('# TYPE aw_http_request_duration_seconds histogram');
    for (const { labels, durations: h } of all) {
      BUCKETS.forEach((le, i) => out.push(`aw_http_request_duration_seconds_bucket{${labels},le="${le}"} ${h.counts[i]}`));
      out.push(`aw_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${h.count}`);
      out.push(`aw_http_request_duration_seconds_sum{${labels}} ${h.sum}`);
      out.push(`aw_http_request_duration_seconds_count{${labels}} ${h.count}`);
    }
    for (const g of this.gauges) {
      const value = await Promise.resolve().then(g.read).catch(() => NaN);
      out.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} ${g.type ?? 'gauge'}`, `${g.name} ${value}`);
    }
    for (const s of this.series) {
      out.push(`# HELP ${s.name} ${s.help}`, `# TYPE ${s.name} ${s.type ?? 'gauge'}`);
      const rows = await s.read().catch(() => []);
      for (const { labels, value } of rows) {
        out.push(`${s.name}{${Object.entries(labels).map(([k, v]) => `${k}="${escape(v)}"`).join(',')}} ${value}`);
      }
    }
    return out.join('\n') + '\n';
  }
}

function escape(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
