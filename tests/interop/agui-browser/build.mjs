// Bundles the page (src/page.jsx and its packages) into dist/, no CDN: `node build.mjs`.
import { build } from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';

const here = new URL('.', import.meta.url).pathname;
await mkdir(`${here}dist`, { recursive: true });
await build({
  entryPoints: [`${here}src/page.jsx`],
  bundle: true,
  format: 'esm',
  jsx: 'automatic',
  minify: true,
  outfile: `${here}dist/page.js`,
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});
await copyFile(`${here}src/index.html`, `${here}dist/index.html`);
