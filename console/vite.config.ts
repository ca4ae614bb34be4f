import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/** The console: built into dist/console and served by the API at /console (src/console/routes.ts). */
export default defineConfig({
  root: here('.'),
  base: '/console/',
  plugins: [react()],
  resolve: {
    alias: [
      { find: /^@sdk\/api$/, replacement: here('../sdk/src/api.ts') },
      { find: /^@sdk$/, replacement: here('../sdk/src/index.ts') },
    ],
  },
  build: {
    outDir: here('../dist/console'),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    // Nothing is inlined as a data: URL, so the CSP needs no exceptions for fonts or scripts.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    // The editor page carries CodeMirror; it loads only when opened (scripts/console-size.ts checks the initial load).
    chunkSizeWarningLimit: 800,
  },
  worker: { format: 'es' },
});
