/**
 * `npm run build`'s last step: the packages the service serves at /downloads/ (the client and the MCP stdio
 * bridge), packed with the service's version into dist/downloads, where the built server reads them.
 */
import path from 'node:path';
import { builtDownloadsDir, writeDownloads } from '../src/downloads/service.js';
import { projectRoot } from '../src/infra/project-root.js';

for (const { name, bytes } of await writeDownloads()) {
  process.stdout.write(`${path.relative(projectRoot, path.join(builtDownloadsDir, name))}: ${(bytes / 1024).toFixed(1)} KB\n`);
}
