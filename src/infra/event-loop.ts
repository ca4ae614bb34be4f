/** Lets other requests run between slices of long work (big bodies, big imports) so none of them waits for it. */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Long work cut into slices of the event loop: yieldIfDue hands the loop back once the work since the last turn has
 * run for a slice, so /healthz and other requests go on while a large import is checked and prepared.
 */
export class EventLoopSlicer {
  private last = performance.now();
  constructor(private readonly sliceMs = 10) {}

  async yieldIfDue(): Promise<void> {
    if (performance.now() - this.last < this.sliceMs) return;
    await yieldToEventLoop();
    this.last = performance.now();
  }
}
