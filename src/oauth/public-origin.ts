import type { Config } from '../config.js';

/** The loopback names a local service answers to. */
const loopbackNames = ['localhost', '127.0.0.1', '[::1]'];

// A Host that is a name or an address with an optional port: anything else cannot be put in a URL.
const plainHost = /^(?:[\w.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** The origin a request names (its scheme and Host), normalised as URL does; undefined when the Host is no host. */
export function requestOrigin(protocol: string, host: string): string | undefined {
  return plainHost.test(host) ? URL.parse(`${protocol}://${host}`)?.origin : undefined;
}

/**
 * The origin the service names itself by: PUBLIC_URL's, whatever Host a request carries. A Host is the client's word,
 * and a document built from it could be cached, behind a proxy, for everyone who asks next. When PUBLIC_URL is not
 * set the service is a local one at http://localhost:PORT, and the other loopback names on its port (127.0.0.1,
 * [::1]) are the same service: a client that reached it through one of them is answered in that one's terms, and a
 * resource named with any of them is this service's.
 */
export class PublicOrigin {
  /** PUBLIC_URL's origin (default http://localhost:PORT). */
  readonly configured: string;
  private readonly aliases: ReadonlySet<string>;

  constructor(config: Pick<Config, 'publicUrl' | 'port'>) {
    this.configured = new URL(config.publicUrl).origin;
    const local = new URL(`http://localhost:${config.port}`).origin;
    this.aliases = new Set(this.configured === local ? loopbackNames.map((name) => new URL(`http://${name}:${config.port}`).origin) : [this.configured]);
  }

  /** Whether an absolute URL (a resource indicator) is on this service. */
  names(url: string): boolean {
    const origin = URL.parse(url)?.origin;
    return origin !== undefined && this.aliases.has(origin);
  }

  /** The origin to name the service by in an answer to a request that came to `origin` (see requestOrigin). */
  answering(origin: string | undefined): string {
    return origin !== undefined && this.aliases.has(origin) ? origin : this.configured;
  }
}
