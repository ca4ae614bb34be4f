import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { checkTarget } from './url-guard.js';

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
}

/** Answers the connection's name lookup with the addresses the guard checked, instead of asking DNS again. */
function pinnedLookup(addresses: LookupAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const usable = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    process.nextTick(() => {
      if (usable.length === 0) return callback(Object.assign(new Error(`${hostname} has no checked IPv${options.family} address`), { code: 'ENOTFOUND' }), '', 0);
      if (options.all) return callback(null, usable);
      callback(null, usable[0].address, usable[0].family);
    });
  };
}

/** The guard's answer, or a refusal once the attempt's time is up (a resolver that never answers must not hold a drain). */
async function checkInTime(url: string, allowPrivate: boolean, timeoutMs: number) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ refused: string }>((resolve) => {
    timer = setTimeout(() => resolve({ refused: `was not resolved within ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    return await Promise.race([checkTarget(url, allowPrivate), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * POSTs one signed delivery (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature over
 * `id.timestamp.body` with the subscription's whsec_ secret). A 2xx is success; redirects are not followed (a 3xx is a
 * failure); past `timeoutMs` the attempt fails. The target passes the same guard as at subscription time first: a
 * refused one is a failed attempt that sends nothing, and the connection goes only to the addresses the guard checked.
 */
export async function sendWebhook(
  target: { url: string; secret: string },
  message: { id: string; body: string; at: Date },
  options: { timeoutMs: number; allowPrivate: boolean },
): Promise<SendResult> {
  const checked = await checkInTime(target.url, options.allowPrivate, options.timeoutMs);
  if ('refused' in checked) return { ok: false, statusCode: null, error: `not sent: the URL ${checked.refused}` };
  const { url, addresses } = checked;
  const signature = new Webhook(target.secret).sign(message.id, message.at, message.body);
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
        lookup: addresses && pinnedLookup(addresses),
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
