import { writeFileSync } from 'node:fs';
import { allRoutes } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { AppServices } from '../src/services.js';
import { runRoute } from '../src/http/pipeline.js';

/**
 * The OpenAPI document exactly as GET /api/v1/openapi.json serves it, built in-process: route specs only
 * touch their services inside handlers, so services holding only the default configuration (which the console's
 * routes read when they are made) are enough and no Neo4j or Redis is needed.
 */
export async function openApiDocument(): Promise<object> {
  const routes = allRoutes({ config: loadConfig({}) } as AppServices);
  const route = routes.find((r) => r.operationId === 'openApi');
  if (!route) throw new Error('no openApi route');
  const ctx = { body: undefined as unknown };
  await runRoute(route, { ctx } as never);
  return ctx.body as object;
}

/** The document as the file sdk/openapi.json holds it (stable key order, two-space indent, final newline). */
export const openApiText = async () => `${JSON.stringify(await openApiDocument(), null, 2)}\n`;

// Usage: tsx scripts/openapi-document.ts [file]   (stdout without a file)
if (import.meta.url === `file://${process.argv[1]}`) {
  const text = await openApiText();
  if (process.argv[2]) writeFileSync(process.argv[2], text);
  else process.stdout.write(text);
}
