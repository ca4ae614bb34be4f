import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { adminCreateUser, adminCreateUserKey, createClient } from '@playbooks/client/api';
import type { Checkout } from './checkout.js';
import type { Options } from './options.js';
import type { Stack } from './stack.js';

/**
 * What a mode that measures on data of its own starts with: a fresh store under <data-dir>/<mode>, the API of the
 * checkout under test on it, the admin client, and a user with a key to act as.
 */
export async function freshApi(o: Options, stack: Stack, checkout: Checkout, mode: string, pageCacheMb = 512) {
  const dataDir = path.join(o.dataDir, mode);
  rmSync(dataDir, { recursive: true, force: true });
  await stack.startStores({ dataDir, heap: o.neo4jHeap, pageCacheMb });
  const adminToken = randomBytes(24).toString('hex');
  const api = await stack.startApi('api', { checkout, adminToken, dataDir, cpuProfDir: o.cpuProfDir });
  const admin = createClient({ baseUrl: api.url, auth: () => adminToken });
  const { data: user } = await adminCreateUser({ client: admin, body: { email: `${mode}-${o.stamp}@bench.example`, name: mode }, throwOnError: true });
  const { data: { key } } = await adminCreateUserKey({ client: admin, path: { userId: user.id }, body: { label: `bench ${mode}` }, throwOnError: true });
  return { dataDir, adminToken, api, admin, user, key };
}
