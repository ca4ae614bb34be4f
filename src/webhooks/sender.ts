import { lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { isPrivateAddress } from './url-guard.js';

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

/** Resolves like the system does, but refuses private addresses (a host re-pointed after it was checked). */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as unknown as { address: string; family: number }[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad || list.length === 0) return callback(Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'EPRIVATE' }), '', 0);
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
    callback(null, list[0].address, list[0].family);
  });
};

/**
 * POSTs one signed delivery (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature over
 * `id.timestamp.body` with the subscription's whsec_ secret). A 2xx is success; redirects are not followed (a 3xx is a
 * failure); past `timeoutMs` the attempt fails.
 */
export async function sendWebhook(
  target: { url: string; secret: string },
  message: { id: string; body: string; at: Date },
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<SendResult> {
  const signature = new Webhook(target.secret).sign(message.id, message.at, message.body);
  const url = new URL(target.url);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(message.body),
          'user-agent': 'playbooks-context-service-webhooks/1',
          'webhook-id': message.id,
          'webhook-timestamp': String(Math.floor(message.at.getTime() / 1000)),
          'webhook-signature': signature,
        },
        timeout: options.timeoutMs,
        lookup: options.allowPrivate ? undefined : publicOnlyLookup,
        agent: false,
      },
      (res) => {
        // The answer's body is not kept; only its status.
        res.resume();
        res.on('end', () => {
          const code = res.statusCode ?? 0;
          const ok = code >= 200 && code < 300;
          resolve({ ok, statusCode: code, error: ok ? null : `the receiver answered ${code}` });
        });
        res.on('error', (err) => resolve({ ok: false, statusCode: res.statusCode ?? null, error: err.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)));
    req.on('error', (err) => resolve({ ok: false, statusCode: null, error: err.message.slice(0, 500) }));
    req.end(message.body);
  });
}
