// Bundles the host page (src/host.js and its packages) into dist/, no CDN: `node build.mjs`.
import { build } from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';

const here = new URL('.', import.meta.url).pathname;
await mkdir(`${here}dist`, { recursive: true });
await build({
  entryPoints: [`${here}src/host.js`],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  outfile: `${here}dist/host.js`,
  logLevel: 'warning',
});
await copyFile(`${here}src/index.html`, `${here}dist/index.html`);
