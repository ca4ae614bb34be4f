/**
 * The V8 flags the API process is started with: by `npm start`, by the Dockerfile and by the bench (which imports
 * them; a test checks the other two). Node reads them only from its command line or NODE_OPTIONS, not from the program.
 *
 * --max-semi-space-size=8: Node 22 and later size V8's young generation from the machine's memory, up to 64 MB
 * per semi-space (128 MB of new space on a 24 GB machine), where Node 20 keeps 16 MB. With 64 uncached bundles
 * in flight that took the API to 345 MB RSS on Node 24, and 291 MB at 16 MB; at 8 MB the peak is 253 MB on
 * Node 24 and 236 MB on Node 20 (271 MB at its default), and the API's CPU per request did not change beyond
 * the run-to-run noise (bench/RESULTS.md, "Node 24, and the young generation").
 */
export const serverNodeFlags = ['--max-semi-space-size=8'];
