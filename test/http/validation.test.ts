import { Type } from '@sinclair/typebox';
import { expect } from 'chai';
import { AppError } from '../../src/errors.js';
import { validatePart } from '../../src/api/validation.js';

/** The field errors a rejected part carries, or null when it was accepted. */
function rejection(run: () => unknown) {
  try {
    run();
    return null;
  } catch (err) {
    expect(err).to.be.instanceOf(AppError);
    return (err as AppError).errors;
  }
}

describe('request validation', () => {
  // No route shares a schema between a body and a query today; nothing stops one from doing it, and a
  // validator compiled once for either use must not leak its coercion (or its strictness) into the other.
  for (const first of ['query', 'body'] as const) {
    it(`one schema object used first as a ${first}, then as the other: the query is coerced, the body taken exactly as sent`, () => {
      const Shared = Type.Object({ limit: Type.Integer(), exact: Type.Boolean() }, { additionalProperties: false });
      const asQuery = () => validatePart(Shared, { limit: '5', exact: 'true' }, 'query');
      const asBody = () => validatePart(Shared, { limit: '5', exact: 'true' }, 'body');
      const runs = first === 'query' ? [asQuery, asBody] : [asBody, asQuery];
      for (const run of runs) {
        if (run === asQuery) {
          expect(asQuery()).to.deep.equal({ limit: 5, exact: true });
        } else {
          expect(rejection(asBody)).to.have.deep.members([
            { path: '/limit', message: 'must be integer', in: 'body' },
            { path: '/exact', message: 'must be boolean', in: 'body' },
          ]);
        }
      }
      expect(validatePart(Shared, { limit: 5, exact: false }, 'body')).to.deep.equal({ limit: 5, exact: false });
    });
  }
});
