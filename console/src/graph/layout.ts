/** The workspace graph is laid out by a worker (layout.worker.ts), off the main thread: started early, taken by the view. */

/** A layout worker started while the graph is fetched (loading its script takes a while), for the next graph view. */
let spareWorker: Worker | null = null;
const startLayoutWorker = () => new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module' });

export function prestartLayoutWorker(): void {
  try {
    spareWorker ??= startLayoutWorker();
  } catch {
    // The view starts its own, and falls back to drawing without a layout if that fails too.
  }
}

/** The spare worker ends with the page that started it. */
export function dropSpareLayoutWorker(): void {
  spareWorker?.terminate();
  spareWorker = null;
}

export function takeLayoutWorker(): Worker {
  const worker = spareWorker ?? startLayoutWorker();
  spareWorker = null;
  return worker;
}
