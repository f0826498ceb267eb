declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
    /** Requests only: how many were answered in all. */
    total?: number;
  }
  export interface Result {
    requests: Histogram;
    latency: Histogram;
    non2xx: number;
    '4xx': number;
    errors: number;
    timeouts: number;
    duration: number;
  }
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    pipelining?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: Array<Record<string, unknown>>;
    /** Called once per connection, before the run's clock starts. */
    setupClient?: (client: Client) => void;
  }
  /** One connection of a run. */
  export interface Client {
    /** Replaces the requests this connection cycles through. */
    setRequests(requests: Array<Record<string, unknown>>): void;
  }
  export default function autocannon(options: Options): Promise<Result>;
}
