import { expect } from 'chai';
import { AppError } from '../../src/errors.js';
import { translate } from '../../src/infra/neo4j-errors.js';
import { unique } from '../support/api.js';
import { sharedGraph, storedRows } from '../support/neo4j.js';

/**
 * Two writes that take the same locks in opposite orders deadlock; Neo4j ends one of them with a transient error.
 * The driver retries such a write within its budget; one still failing after it is the client's to send again,
 * never the service's fault: 503 with Retry-After (issue 58: 39 of 2,599 requests of 32 writers were 500).
 */
describe('a write that meets a deadlock past its retries', function () {
  this.timeout(60_000);

  /** A real DeadlockDetected from Neo4j: two transactions, each holding one node's lock and asking for the other's. */
  async function deadlock(): Promise<unknown> {
    const { driver, database } = sharedGraph();
    const [a, b] = [unique('lock-a'), unique('lock-b')];
    await storedRows('CREATE (:DeadlockProbe {id: $a}), (:DeadlockProbe {id: $b})', { a, b });
    const first = driver.session({ database });
    const second = driver.session({ database });
    const tx1 = await first.beginTransaction();
    const tx2 = await second.beginTransaction();
    const lock = (tx: typeof tx1, id: string) => tx.run('MATCH (n:DeadlockProbe {id: $id}) SET n.touched = true', { id });
    try {
      await lock(tx1, a);
      await lock(tx2, b);
      const outcomes = await Promise.allSettled([lock(tx1, b), lock(tx2, a)]);
      return outcomes.find((o) => o.status === 'rejected')?.reason;
    } finally {
      await Promise.allSettled([tx1.rollback(), tx2.rollback()]);
      await Promise.allSettled([first.close(), second.close()]);
      await storedRows('MATCH (n:DeadlockProbe) WHERE n.id IN [$a, $b] DELETE n', { a, b });
    }
  }

  it('is a 503 service_unavailable with Retry-After, not an internal error', async () => {
    const err = await deadlock();
    expect((err as { code?: string }).code).to.match(/^Neo\.TransientError\./);
    const answered = translate(err);
    expect(answered).to.be.instanceOf(AppError);
    expect((answered as AppError).code).to.equal('service_unavailable');
    expect((answered as AppError).headers?.['Retry-After']).to.match(/^\d+$/);
  });
});
