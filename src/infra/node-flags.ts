/**
 * The V8 flags the API process is started with: by `npm start`, by the Dockerfile and by the bench (which imports
 * them; a test checks the other two). Node reads them only from its command line or NODE_OPTIONS, not from the program.
 *
 * --max-semi-space-size=8: Node 22 and later size V8's young generation from the machine's memory, several times
 * Node 20's default, which under many uncached bundles in flight took the API's RSS past its memory target; a
 * smaller young generation keeps it within, at the same CPU per request (the bench records RSS for both Nodes).
 *
 * --heap-growing-percent=100: after each full collection V8 lets the old generation grow to at most twice what
 * survived, instead of a factor it chooses up to four. Requests that stay open while Neo4j works (a bulk import's
 * batch of a thousand nodes) outlive the young generation, so their garbage lands in the old one: with V8's own
 * factor it piled up before a full collection, taking the RSS past its target (`npm run bench -- --import` prints it).
 */
export const serverNodeFlags = ['--max-semi-space-size=8', '--heap-growing-percent=100'];
