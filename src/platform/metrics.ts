import { collectDefaultMetrics, Counter, Gauge, type Metric, Registry } from 'prom-client';

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

interface RouteSeries {
  byStatus: Map<number, number>;
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  buckets: number[];
  sum: number;
  count: number;
}

type Value = { value: number; labels: Record<string, string | number>; metricName?: string };

/**
 * Request counts and durations by method, route pattern and status, as
 * `pbs_http_requests_total` and `pbs_http_request_duration_seconds`. Counted in plain maps and
 * rendered for prom-client's registry at scrape time: prom-client's labelled `inc`/`observe` hash
 * their label objects on every call, which is a measurable share of a fast request.
 */
export class HttpMetrics {
  private readonly series = new Map<string, Map<string, RouteSeries>>();

  record(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.series.get(route);
    if (!byMethod) this.series.set(route, (byMethod = new Map()));
    let s = byMethod.get(method);
    if (!s) byMethod.set(method, (s = { byStatus: new Map(), buckets: new Array(DURATION_BUCKETS.length + 1).fill(0), sum: 0, count: 0 }));
    s.byStatus.set(status, (s.byStatus.get(status) ?? 0) + 1);
    let bucket = 0;
    while (bucket < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[bucket]) bucket++;
    s.buckets[bucket]++;
    s.sum += seconds;
    s.count++;
  }

  /** The two metrics as prom-client registry entries. */
  register(registry: Registry): void {
    const each = (visit: (method: string, route: string, s: RouteSeries) => void) => {
      for (const [route, byMethod] of this.series) for (const [method, s] of byMethod) visit(method, route, s);
    };
    registry.registerMetric(
      scrapedMetric(
        'pbs_http_requests_total',
        'HTTP requests answered, by route pattern and status',
        'counter',
        () => {
          const values: Value[] = [];
          each((method, route, s) => {
            for (const [status, value] of s.byStatus) values.push({ value, labels: { method, route, status: String(status) } });
          });
          return values;
        },
        () => this.reset(),
      ),
    );
    registry.registerMetric(
      scrapedMetric(
        'pbs_http_request_duration_seconds',
        'Time to answer HTTP requests',
        'histogram',
        () => {
          const values: Value[] = [];
          each((method, route, s) => {
            let cumulative = 0;
            DURATION_BUCKETS.forEach((le, i) => {
              cumulative += s.buckets[i];
              values.push({ value: cumulative, labels: { le, method, route }, metricName: 'pbs_http_request_duration_seconds_bucket' });
            });
            values.push({ value: s.count, labels: { le: '+Inf', method, route }, metricName: 'pbs_http_request_duration_seconds_bucket' });
            values.push({ value: s.sum, labels: { method, route }, metricName: 'pbs_http_request_duration_seconds_sum' });
            values.push({ value: s.count, labels: { method, route }, metricName: 'pbs_http_request_duration_seconds_count' });
          });
          return values;
        },
        () => this.reset(),
      ),
    );
  }

  reset(): void {
    this.series.clear();
  }
}

/** A metric whose values are produced when the registry is scraped (prom-client's `get()` contract). */
function scrapedMetric(name: string, help: string, type: 'counter' | 'histogram', values: () => Value[], reset: () => void): Metric {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum' as const,
    collect: () => undefined,
    get: async () => ({ name, help, type, aggregator: 'sum' as const, values: values() }),
    reset,
  };
  // Cast: prom-client's `Metric` is a class; the registry only calls the members written here.
  return metric as unknown as Metric;
}

/** One registry per app instance, so tests can build several apps in one process. */
export class Metrics {
  readonly registry = new Registry();
  readonly http = new HttpMetrics();
  readonly taskOutcomes: Counter<'type' | 'outcome'>;
  readonly bookingRetries: Counter;

  constructor(options: { defaultMetrics?: boolean; role?: string } = {}) {
    if (options.defaultMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'pbs_' });
    if (options.role) {
      // Several processes answer behind one address (docs/scaling.md): which one a scrape reached.
      const info = new Gauge({
        name: 'pbs_process_info',
        help: 'This process: its pid and role',
        labelNames: ['pid', 'role'],
        registers: [this.registry],
      });
      info.set({ pid: String(process.pid), role: options.role }, 1);
    }
    this.http.register(this.registry);
    this.taskOutcomes = new Counter({
      name: 'pbs_tasks_total',
      help: 'Background task attempts by type and outcome',
      labelNames: ['type', 'outcome'],
      registers: [this.registry],
    });
    this.bookingRetries = new Counter({
      name: 'pbs_booking_retries_total',
      help: 'Bookings decided again under the restaurant lock because another booking of the restaurant came in between (PostgreSQL)',
      registers: [this.registry],
    });
  }
}
