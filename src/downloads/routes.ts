import type { Logger } from 'pino';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import { serviceVersion } from '../infra/project-root.js';
import { type DownloadName, tarballOf } from './service.js';

const offered: Record<DownloadName, { operationId: string; summary: string; install: string }> = {
  'playbooks-client.tgz': {
    operationId: 'downloadClient',
    summary: 'The TypeScript client (@playbooks/client) as an npm package',
    install: 'npm install http://HOST:3000/downloads/playbooks-client.tgz',
  },
  'playbooks-mcp.tgz': {
    operationId: 'downloadMcpBridge',
    summary: 'The MCP stdio bridge (@playbooks/mcp, command playbooks-mcp) as an npm package',
    install: 'npx -y http://HOST:3000/downloads/playbooks-mcp.tgz',
  },
  'playbooks-cypher.tgz': {
    operationId: 'downloadCypherShell',
    summary: 'The analysts’ read-only Cypher shell (@playbooks/cypher, command playbooks-cypher) as an npm package',
    install: 'npm install -g http://HOST:3000/downloads/playbooks-cypher.tgz',
  },
};

/**
 * The service's own packages, of its own version, for `npm install <url>` and `npx -y <url>`: no key needed,
 * like /docs. Never stored by a client's cache, so that after an upgrade the next install gets the new version.
 */
export function downloadRoutes(services: { logger: Logger }): AnyOperation[] {
  return (Object.entries(offered) as [DownloadName, (typeof offered)[DownloadName]][]).map(([name, { operationId, summary, install }]) =>
    defineOperation({
      method: 'get', path: `/downloads/${name}`, operationId, tag: 'Downloads', access: { kind: 'public' },
      summary,
      description: `An npm package tarball whose version is the service's: \`${install}\`.`,
      responses: {
        200: {
          description: 'The package',
          headers: { 'Content-Disposition': 'attachment, with the file name npm pack gives the package' },
          otherTypes: { 'application/gzip': 'npm package tarball (gzipped tar)' },
        },
      },
      errors: [404, 503],
      handler: async ({ ctx }) => {
        const tarball = await tarballOf(name, services.logger);
        ctx.attachment(name.replace(/\.tgz$/, `-${serviceVersion}.tgz`));
        ctx.set('Cache-Control', 'no-store');
        ctx.type = 'application/gzip';
        ctx.body = tarball;
      },
    }),
  );
}
