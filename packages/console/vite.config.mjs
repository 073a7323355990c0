// The console is served by the server under /console/ (docs/console.md): Vite builds it into
// the server package's build folder, so it ships with that package (packages/server `files`).
/* global URL */
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../server/build/console', import.meta.url)),
    emptyOutDir: true,
    // A 128-step instance page must render in under 1 s (docs/benchmarks.md): no source maps
    // shipped, one hashed script and stylesheet.
    sourcemap: false,
    chunkSizeWarningLimit: 1024,
  },
});
