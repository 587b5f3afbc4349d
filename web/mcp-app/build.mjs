// Builds the MCP Apps renderer bundle `a2ui-agent serve --mcp` offers as
// `ui://a2ui-agent/renderer.html` into dist/renderer.html, which is committed and embedded in
// the binary (src/server/mcp/bundle.rs), so serving it never needs npm. It is one HTML
// document with its script inlined: a host's sandboxed iframe loads nothing else.
//
//   node build.mjs          writes dist/renderer.html
//   node build.mjs --check  builds in memory and fails when dist/ differs (the test command
//                           runs this, so the committed bundle always matches its sources)
//
// The output is deterministic: no source maps, no timestamps, pinned esbuild and packages.
import { build } from 'esbuild';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'dist', 'renderer.html');
const check = process.argv.includes('--check');

const result = await build({
  absWorkingDir: here,
  entryPoints: ['src/app.js'],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'eof',
  charset: 'utf8',
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
  write: false,
});

// Inside <script>, `</script` would end the element (escaped: `<\/script` means the same in
// JavaScript), and `<!--` followed later by `<script` would hide the real end from the HTML
// parser: the code has `<!--` (markdown-it's HTML rules), so `<script` must not occur.
const script = result.outputFiles[0].text.replace(/<\/(script)/gi, '<\\/$1');
if (/<script/i.test(script)) throw new Error('the renderer bundle holds `<script`');
const page = await readFile(join(here, 'src/app.html'), 'utf8');
const [before, after] = page.split('<!-- bundle -->');
if (after === undefined) throw new Error('src/app.html has no `<!-- bundle -->` placeholder');
const html = Buffer.from(`${before}<script type="module">${script}</script>${after}`);

if (check) {
  const committed = await readFile(out).catch(() => null);
  if (!committed || !committed.equals(html)) {
    console.error('web/mcp-app/dist/renderer.html is out of date: run `npm run build --prefix web/mcp-app` and commit it.');
    process.exit(1);
  }
} else {
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, html);
  console.log(`dist/renderer.html  ${(html.length / 1024).toFixed(0)} KiB`);
}
