/** Lets other requests run between slices of long work (big bodies, big imports) so none of them waits for it. */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
