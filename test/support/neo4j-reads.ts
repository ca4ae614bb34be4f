import { env } from './harness.js';

/**
 * Statements the shared API process reads on timers of its own, whatever the requests: owed signals, the
 * webhook outbox relay and the dispatcher. They are not a request's reads.
 */
const background = new Set(['gate/pending-signals', 'webhooks/due', 'webhooks/next-deliveries']);

/** Counts the Neo4j reads `work` causes in the shared API process (its background loops left out). */
export async function neo4jReadsDuring(work: () => Promise<unknown>): Promise<number> {
  const { graph } = env.service.services;
  const read = graph.read.bind(graph);
  let reads = 0;
  graph.read = (async (...args: Parameters<typeof read>) => {
    if (!background.has(args[0])) reads += 1;
    return read(...args);
  }) as typeof graph.read;
  try {
    await work();
  } finally {
    graph.read = read;
  }
  return reads;
}
