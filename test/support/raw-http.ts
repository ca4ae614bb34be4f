import http from 'node:http';

/** What came back, read whole. */
export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, when it is JSON. */
  body: any;
}

/**
 * An HTTP request fetch cannot make: from a chosen local address (any of 127.0.0.0/8 reaches a service listening on
 * 127.0.0.1, and the service sees that address as the client's), or with a Host header of the test's choosing.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown; localAddress?: string } = {},
): Promise<RawReply> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers = { ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) }), ...options.headers };
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers, localAddress: options.localAddress }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        let body: any;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, text, body });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

let nextLoopback = 0;

/** A loopback address no other caller of this run gets (127.0.1.2 and up), so what is counted per address is its caller's alone. */
export function ownLoopbackAddress(): string {
  const n = nextLoopback++;
  return `127.0.${1 + Math.floor(n / 250)}.${2 + (n % 250)}`;
}
