/**
 * The V8 flags the API process is started with: by `npm start`, by the Dockerfile and by the bench (which imports
 * them; a test checks the other two). Node reads them only from its command line or NODE_OPTIONS, not from the program.
 *
 * --max-semi-space-size=16: Node 22 and later size V8's young generation from the machine's memory, up to
 * 64 MB per semi-space (128 MB of new space on a 24 GB machine), where Node 20 keeps 16 MB. On Node 24 that
 * took the API past 300 MB RSS with 64 uncached bundles in flight (bench/RESULTS.md, "Node 24"); capped at
 * Node 20's size it stayed at 248 MB, with no measurable change in throughput.
 */
export const serverNodeFlags = ['--max-semi-space-size=16'];
