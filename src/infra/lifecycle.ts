/**
 * The process's own state as a load balancer sees it. Draining starts at shutdown: /readyz answers 503 so the
 * balancer sends new requests elsewhere, answers close their connections, and requests already in flight finish.
 */
export class Lifecycle {
  draining = false;
}
