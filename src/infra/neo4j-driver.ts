import neo4j, { type Driver } from 'neo4j-driver';

export interface Neo4jSettings {
  uri: string;
  username: string;
  password: string;
  database: string;
}

/** How long a read or a transaction is retried on retryable errors before its error is given up to the caller. */
export const retryBudgetMs = 3_000;

/** One driver per process. Integers come back as JS numbers: every count in this service fits. */
export function createDriver(settings: Neo4jSettings): Driver {
  return neo4j.driver(settings.uri, neo4j.auth.basic(settings.username, settings.password), {
    disableLosslessIntegers: true,
    maxConnectionPoolSize: 100,
    // An unreachable database should become a 503 within seconds, not hold requests for half a minute.
    connectionAcquisitionTimeout: 5_000,
    connectionTimeout: 2_000,
    maxTransactionRetryTime: retryBudgetMs,
  });
}

/**
 * The analysts' driver: its own small pool, so ad-hoc queries can never take the connections the API's
 * requests need, and integers kept lossless (an analyst's value beyond 2^53 must not come back rounded).
 */
export function createUntrustedDriver(settings: Neo4jSettings, poolSize: number): Driver {
  return neo4j.driver(settings.uri, neo4j.auth.basic(settings.username, settings.password), {
    maxConnectionPoolSize: poolSize,
    connectionAcquisitionTimeout: 5_000,
    connectionTimeout: 2_000,
  });
}
