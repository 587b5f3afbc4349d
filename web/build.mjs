// Builds the page `a2ui-agent serve` answers GET / with into dist/, which is committed and
// embedded in the binary (src/server/web.rs), so running the server never needs npm.
//
//   node build.mjs          writes dist/
//   node build.mjs --check  builds in memory and fails when dist/ differs (the test command
//                           runs this, so the committed bundle always matches its sources)
//
// The output is deterministic: no source maps, no timestamps, pinned esbuild and packages.
import { build } from 'esbuild';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
const check = process.argv.includes('--check');

const result = await build({
  absWorkingDir: here,
  entryPoints: {
    'a2ui-v0_9': 'src/v0_9.js',
    'a2ui-v0_8': 'src/v0_8.js',
  },
  outdir: dist,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'eof',
  charset: 'utf8',
  inject: ['src/buffer_shim.js'],
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
  write: false,
});

const files = new Map(result.outputFiles.map((file) => [file.path, Buffer.from(file.contents)]));
files.set(join(dist, 'index.html'), await readFile(join(here, 'src/index.html')));

if (check) {
  const stale = [];
  for (const [path, contents] of files) {
    const committed = await readFile(path).catch(() => null);
    if (!committed || !committed.equals(contents)) stale.push(relative(here, path));
  }
  if (stale.length > 0) {
    console.error(`web/dist is out of date (${stale.join(', ')}): run \`npm run build --prefix web\` and commit it.`);
    process.exit(1);
  }
} else {
  await mkdir(dist, { recursive: true });
  for (const [path, contents] of files) {
    await writeFile(path, contents);
    console.log(`${relative(here, path)}  ${(contents.length / 1024).toFixed(0)} KiB`);
  }
}
