import { randomUUID } from 'node:crypto';
import type { Context, Middleware, Next } from 'koa';
import type { Logger } from 'pino';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The process's Prometheus metrics; one registry per app so that tests can build several apps. */
export class Metrics {
  readonly registry = new Registry();
  /**
   * Each label set's count and histogram child, looked up once (a route pattern, a method and a status repeat):
   * http_requests_total is read from the counts at each scrape, so a request costs one prom-client update, not two.
   */
  private readonly answered = new Map<string, RequestSeries>();
  readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
    collect: () => {
      this.requests.reset();
      for (const { labels, count } of this.answered.values()) this.requests.inc(labels, count);
    },
  });
  readonly duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly quotaRejections = new Counter({
    name: 'quota_rejections_total',
    help: 'Retrievals refused because the monthly quota was exhausted',
    registers: [this.registry],
  });
  readonly dependencyErrors = new Counter({
    name: 'dependency_errors_total',
    help: 'Failed calls to Neo4j or Redis',
    labelNames: ['dependency'],
    registers: [this.registry],
  });

  constructor(options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** The requests answered with these labels: count one with `count += 1`, time it with `duration.observe`. */
  series(method: string, route: string, status: string): RequestSeries {
    const key = `${method} ${route} ${status}`;
    let found = this.answered.get(key);
    if (!found) {
      const labels = { method, route, status };
      found = { labels, count: 0, duration: this.duration.labels(labels) };
      this.answered.set(key, found);
    }
    return found;
  }
}

interface RequestSeries {
  labels: { method: string; route: string; status: string };
  count: number;
  duration: { observe(seconds: number): void };
}

const validRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (the caller's X-Request-Id when it is sane), echoes it, logs one line per
 * request and records the metrics. The route label is the matched pattern, never the raw URL.
 */
export function observe(logger: Logger, metrics: Metrics): Middleware {
  const logRequests = logger.isLevelEnabled('info');
  return async (ctx: Context, next: Next) => {
    const started = process.hrtime.bigint();
    const given = ctx.get('x-request-id');
    const requestId = validRequestId.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route: string = ctx.state.route ?? 'unmatched';
      const series = metrics.series(ctx.method, route, String(ctx.status));
      series.count += 1;
      series.duration.observe(seconds);
      if (ctx.status === 429 && ctx.body && (ctx.body as { code?: string }).code === 'quota_exceeded') metrics.quotaRejections.inc();
      if (ctx.status === 503) metrics.dependencyErrors.inc({ dependency: /graph/.test(String((ctx.body as { detail?: string })?.detail)) ? 'neo4j' : 'redis' });
      if (logRequests) logger.info({ requestId, method: ctx.method, route, status: ctx.status, ms: Math.round(seconds * 1e4) / 10 }, 'request');
    }
  };
}
