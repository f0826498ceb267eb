import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One registry per app instance, so tests can build several apps in one process. */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly jobOutcomes: Counter<'type' | 'outcome'>;

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'pbs_' });
    this.httpRequests = new Counter({
      name: 'pbs_http_requests_total',
      help: 'HTTP requests answered, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.httpDuration = new Histogram({
      name: 'pbs_http_request_duration_seconds',
      help: 'Time to answer HTTP requests',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
    this.jobOutcomes = new Counter({
      name: 'pbs_jobs_total',
      help: 'Background job attempts by type and outcome',
      labelNames: ['type', 'outcome'],
      registers: [this.registry],
    });
  }
}
