import type { RedisClient } from './infra/redis.js';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { RequestGate } from './gate/gate.js';
import type { Metrics } from './http/observability.js';
import type { Clock } from './infra/ids.js';
import type { GraphExecutor } from './infra/neo4j.js';

/** The connections a process holds; created by runtime.ts (or the test fixture) and shared by everything. */
export interface Infra {
  config: Config;
  logger: Logger;
  graph: GraphExecutor;
  redis: RedisClient;
  clock: Clock;
  metrics: Metrics;
}

/** What the gate hears from the services: the signals that keep cached access and answers true after a change. */
export type GateSignals = Pick<RequestGate, 'accessChanged' | 'graphChanged' | 'limitChanged' | 'usage'>;

/** What a component service may depend on: the infrastructure plus the gate's signals. */
export type ServiceDeps = Infra & { gate: GateSignals };
