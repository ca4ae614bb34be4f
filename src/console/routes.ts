import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Type } from '@sinclair/typebox';
import type { Context } from 'koa';
import { AppError } from '../errors.js';
import { type AnyOperation, defineOperation } from '../api/operation.js';
import { projectRoot } from '../infra/project-root.js';

/** Where `vite build` (console/vite.config.ts) writes the console. */
export const consoleDir = path.join(projectRoot, 'dist', 'console');

/**
 * Every asset is served from this origin; scripts and styles come from files only (no inline code), the
 * layout worker is a file of its own, and the only requests the page makes are to this same API. Images in a
 * node's preview may also come from the operator's CONSOLE_IMAGE_ORIGINS (origins, validated by src/config.ts).
 */
export const consoleCsp = (styleNonce: string, imageOrigins: readonly string[] = []) => [
  "default-src 'none'",
  "script-src 'self'",
  // The editor (CodeMirror) writes its theme into a <style> element: it carries this response's nonce.
  `style-src 'self' 'nonce-${styleNonce}'`,
  ["img-src 'self' data:", ...imageOrigins].join(' '),
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const types: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.map': 'application/json',
};

/**
 * Files of the build read once, with their gzip form (the build does not change under a running process). Only
 * files that exist are kept, so requests for made-up names cannot grow the map.
 */
const files = new Map<string, { plain: Buffer; gzipped: Buffer }>();
function readOnce(file: string): { plain: Buffer; gzipped: Buffer } | null {
  let entry = files.get(file);
  if (!entry && existsSync(file)) {
    const plain = readFileSync(file);
    entry = { plain, gzipped: gzipSync(plain) };
    files.set(file, entry);
  }
  return entry ?? null;
}

function securityHeaders(ctx: Context, imageOrigins: readonly string[], styleNonce = randomBytes(16).toString('base64')): void {
  ctx.set('Content-Security-Policy', consoleCsp(styleNonce, imageOrigins));
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
}

/**
 * The web console (docs/console.md): a single-page app built into dist/console. `/console/assets/*` are the
 * hashed build outputs (cached for a year); every other path under /console is a client route and answers
 * index.html. Public routes like /docs: the page asks for a key itself and sends it only to the API.
 * These routes are not part of the API, so they are left out of the OpenAPI document.
 */
export function consoleRoutes({ dir = consoleDir, imageOrigins = [] }: { dir?: string; imageOrigins?: readonly string[] } = {}): AnyOperation[] {
  // The preview shows only the images the CSP lets through and puts a note in place of the others, so the browser
  // neither asks for them nor reports a violation (console/src/pages/NodePreview.tsx).
  const imageMeta = `\n    <meta name="console-image-origins" content="${imageOrigins.join(' ')}" />`;
  const page: AnyOperation['handler'] = async ({ ctx }) => {
    const html = readOnce(path.join(dir, 'index.html'));
    if (!html) throw new AppError('not_found', 'The console is not built: run npm run build');
    const nonce = randomBytes(16).toString('base64');
    securityHeaders(ctx, imageOrigins, nonce);
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    // The page hands the nonce to the editor through a meta element (console/src/pages/NodeEditor.tsx).
    ctx.body = html.plain.toString('utf8').replace('<head>', `<head>\n    <meta name="csp-style-nonce" content="${nonce}" />${imageMeta}`);
  };
  // Client routes carry their own query strings (?playbook=…), which the page reads, not the server.
  const query = Type.Object({}, { additionalProperties: true });
  const base = { tag: 'Console', access: { kind: 'public' as const }, query, responses: { 200: { description: 'The console' } }, errors: [404] };
  return [
    defineOperation({ ...base, method: 'get', path: '/console', operationId: 'console', summary: 'The web console', handler: page }),
    defineOperation({
      ...base, method: 'get', path: '/console/{*rest}', operationId: 'consolePath', summary: 'The web console’s assets and client routes',
      handler: async (args) => {
        const { ctx } = args;
        const match = /^\/console\/assets\/([A-Za-z0-9._-]+)$/.exec(ctx.path);
        if (!match) return page(args);
        const name = match[1];
        const type = types[path.extname(name)];
        const body = type && !name.startsWith('.') ? readOnce(path.join(dir, 'assets', name)) : null;
        if (!body) throw new AppError('not_found', 'No such file');
        securityHeaders(ctx, imageOrigins);
        ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
        ctx.vary('Accept-Encoding');
        ctx.type = type;
        if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
          ctx.set('Content-Encoding', 'gzip');
          ctx.body = body.gzipped;
        } else {
          ctx.body = body.plain;
        }
      },
    }),
  ];
}
