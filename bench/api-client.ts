/** What the bench asks the API one request at a time, outside the load runs. */
import type { Paths } from './workspaces.js';

export async function api(base: string, method: string, p: string, token: string, body?: unknown): Promise<any> {
  const res = await fetch(base + p, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p} answered ${res.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** A user key of the workspace's owner, and a monthly limit no run can reach. */
export async function issueKey(base: string, adminToken: string, ws: { ownerUserId: string; workspaceId: string }, keyLabel: string): Promise<string> {
  const created = await api(base, 'POST', `/api/v1/admin/users/${ws.ownerUserId}/keys`, adminToken, { label: keyLabel });
  await api(base, 'PATCH', `/api/v1/admin/workspaces/${ws.workspaceId}`, adminToken, { monthlyRetrievalLimit: 1_000_000_000 });
  return created.key;
}

/**
 * One answer per bundle URL: the bytes for the same-bytes baseline (JSON {url: base64}), the ETags for the
 * 304 run and the sizes. Also checks that every other request list is answered 200 before it is loaded.
 */
export async function captureBundles(base: string, p: Paths, key: string): Promise<{ bodies: Record<string, string>; etags: string[]; lengths: number[] }> {
  const headers = { authorization: `Bearer ${key}` };
  const bodies: Record<string, string> = {};
  const etags: string[] = [];
  const lengths: number[] = [];
  for (const url of p.bundle) {
    const res = await fetch(base + url, { headers });
    const buf = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${buf.toString().slice(0, 300)}`);
    bodies[url] = buf.toString('base64');
    etags.push(res.headers.get('etag') ?? '');
    lengths.push(buf.length);
  }
  for (const url of [p.manifest[0], p.follow[0], p.playbook[0]]) {
    const res = await fetch(base + url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
  }
  return { bodies, etags, lengths };
}

export interface FirstRequest {
  request: string;
  firstMs: number;
  againMs: number;
}

/**
 * A diagnostic: the first bundle, bundle with changedSince, manifest and follow (each its own parameter
 * types, so its own plan in Neo4j's cache) sent to a freshly started API, then each once more. What an agent
 * meets right after a deploy, before anything else has run. Each time includes parsing the answer, which is
 * small beside what is measured.
 */
export async function firstRequests(base: string, p: Paths, key: string): Promise<FirstRequest[]> {
  const timed = async (url: string) => {
    const t0 = performance.now();
    await api(base, 'GET', url, key);
    return performance.now() - t0;
  };
  const requests: [string, string][] = [
    ['bundle', p.bundle[0]],
    ['bundle changedSince', `${p.bundle[1]}&changedSince=2000-01-01T00:00:00Z`],
    ['manifest', p.manifest[2]],
    ['follow', p.follow[0]],
  ];
  const out: FirstRequest[] = [];
  for (const [request, url] of requests) out.push({ request, firstMs: await timed(url), againMs: await timed(url) });
  return out;
}
