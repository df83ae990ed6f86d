import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { referencePages } from './reference-pages';

/** The console is a static client of the control plane: `vite build` writes console/dist. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, target: 'es2022', reportCompressedSize: false },
  plugins: [referencePages()],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
});
