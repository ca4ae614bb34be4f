import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { AppError } from '../errors.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import { consoleDir } from './routes.js';

/**
 * Browsers ask for /favicon.ico on pages that name no icon (the API docs, a JSON answer opened in a tab), and the
 * console names this address too. The answer is the console's icon as SVG (the build copies it from
 * console/public): browsers take the type from the header, not the name.
 */
export function faviconRoutes(file = path.join(consoleDir, 'favicon.svg')): AnyOperation[] {
  let icon: Buffer | undefined;
  return [
    defineOperation({
      method: 'get', path: '/favicon.ico', operationId: 'favicon', summary: 'The service’s icon', tag: 'Console',
      access: { kind: 'public' }, query: Type.Object({}, { additionalProperties: true }),
      responses: { 200: { description: 'The icon (SVG)' } }, errors: [404],
      handler: async ({ ctx }) => {
        if (!icon && existsSync(file)) icon = readFileSync(file);
        if (!icon) throw new AppError('not_found', 'The console is not built: run npm run build');
        ctx.set('Cache-Control', 'public, max-age=86400');
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.type = 'image/svg+xml';
        ctx.body = icon;
      },
    }),
  ];
}
