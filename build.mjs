// The one build script: the SPA (code-split, hashed names) into dist/public and the server
// into dist/server.mjs (and its database worker, dist/pglite-worker.mjs). Every text asset gets .br and .gz siblings, compressed once here at the highest
// levels, which the server sends by Accept-Encoding (server/http/static.ts). Flags: --if-needed skips a build newer than every source file;
// --watch rebuilds on change and restarts the server. BUILD_DIR moves the output (default dist).
// The installed app (issue 47): the manifest's icons are drawn here (scripts/app-icons.mjs), offline.html is filled in like
// index.html, and the service worker (/sw.js) is built last with this build's list of files to precache in it.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import { APP_ICONS, drawIcon } from './scripts/app-icons.mjs';

const OUT = process.env.BUILD_DIR || 'dist';
const PUBLIC = join(OUT, 'public');
const SOURCES = ['src', 'styles', 'server', 'public', 'index.html', 'offline.html', 'build.mjs', 'scripts/app-icons.mjs', 'package-lock.json'];
const args = new Set(process.argv.slice(2));

/** Stylesheets of screens a first load does not show, loaded with the screen (src/lib/screen-style.ts), not with the app. */
const SCREEN_STYLES = ['agent-page', 'replay', 'admin', 'reports', 'settings'];

const spa = {
  // The offline page's script imports nothing of the app's, so it shares no chunk with it.
  entryPoints: ['src/main.tsx', 'src/offline-page.ts', ...SCREEN_STYLES.map((name) => `styles/${name}.css`)],
  bundle: true,
  splitting: true,
  format: 'esm',
  outdir: join(PUBLIC, 'assets'),
  entryNames: '[name]-[hash]',
  chunkNames: 'chunks/[name]-[hash]',
  assetNames: '[name]-[hash]',
  jsx: 'automatic',
  minify: true,
  sourcemap: true,
  target: ['chrome110', 'firefox115', 'safari16'],
  metafile: true,
  define: { 'process.env.NODE_ENV': '"production"' },
  loader: { '.svg': 'file', '.png': 'file', '.woff2': 'file' },
  legalComments: 'linked',
  logLevel: 'warning',
};

const server = {
  // The embedded database's worker thread is a script of its own beside the server (server/db/pglite-remote.ts).
  entryPoints: { server: 'server/main.ts', 'pglite-worker': 'server/db/pglite-worker.ts' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outdir: OUT,
  outExtension: { '.js': '.mjs' },
  packages: 'external',
  loader: { '.sql': 'text' },
  sourcemap: true,
  logLevel: 'warning',
};

/** The screen most visits open first (the agents grid at /): its chunk is preloaded with the entry's. */
const HOME_SCREEN = 'src/screens/agents/agents-screen.tsx';

/**
 * Writes index.html with the entry's hashed script and stylesheet names, and a modulepreload for every
 * chunk the entry imports statically and for the home screen's: the browser fetches them beside the
 * entry instead of one round trip later, once it has parsed the entry (issue 26: slow links).
 */
function writeIndex(metafile) {
  const outputs = Object.entries(metafile.outputs);
  const [js] = outputs.find(([, o]) => o.entryPoint === 'src/main.tsx');
  const css = outputs.find(([file]) => file.endsWith('.css') && file.includes('/main-'))?.[0];
  const url = (file) => '/' + relative(PUBLIC, file).split('\\').join('/');
  const preload = new Set();
  const walk = (file) => {
    for (const imp of metafile.outputs[file]?.imports ?? []) {
      if (imp.kind === 'import-statement' && !preload.has(imp.path) && imp.path !== js) preload.add(imp.path) && walk(imp.path);
    }
  };
  walk(js);
  const home = outputs.find(([, o]) => o.entryPoint === HOME_SCREEN)?.[0];
  if (home) preload.add(home) && walk(home);
  const links = [...preload].map((file) => `<link rel="modulepreload" href="${url(file)}">`).join('\n    ');
  // The screens' own stylesheets as their hashed file names ("replay-H4SH ..."; src/lib/screen-style.ts reads this).
  const stems = SCREEN_STYLES.map((name) => outputs.find(([, o]) => o.entryPoint === `styles/${name}.css`)[0].split('/').pop().replace(/\.css$/, ''));
  const styleMap = `<meta name="screen-styles" content="${stems.join(' ')}">`;
  // The icon inline: one request less on the first load (public/favicon.svg stays for other pages).
  const icon = 'data:image/svg+xml,' + encodeURIComponent(readFileSync('public/favicon.svg', 'utf8').trim());
  const html = readFileSync('index.html', 'utf8')
    .replace('href="/favicon.svg"', `href="${icon}"`)
    .replace('<!--styles-->', (css ? `<link rel="stylesheet" href="${url(css)}">` : '') + `\n    ${styleMap}` + (links ? `\n    ${links}` : ''))
    .replace('<!--script-->', `<script type="module" src="${url(js)}"></script>`);
  writeFileSync(join(PUBLIC, 'index.html'), html);
  cpSync('public', PUBLIC, { recursive: true });
}

const assetUrl = (file) => '/' + relative(PUBLIC, file).split('\\').join('/');

/** offline.html, what the service worker shows for a page it cannot fetch and has no shell for, with the app's stylesheet. */
function writeOffline(metafile) {
  const outputs = Object.entries(metafile.outputs);
  const css = outputs.find(([file]) => file.endsWith('.css') && file.includes('/main-'))?.[0];
  const [js] = outputs.find(([, o]) => o.entryPoint === 'src/offline-page.ts');
  const html = readFileSync('offline.html', 'utf8')
    .replace('<!--styles-->', css ? `<link rel="stylesheet" href="${assetUrl(css)}">` : '')
    .replace('<!--script-->', `<script type="module" src="${assetUrl(js)}"></script>`);
  writeFileSync(join(PUBLIC, 'offline.html'), html);
}

/** The manifest's and the notifications' icons (public/manifest.webmanifest names them). */
function writeIcons() {
  mkdirSync(join(PUBLIC, 'icons'), { recursive: true });
  for (const { file, size, kind } of APP_ICONS) writeFileSync(join(PUBLIC, 'icons', file), drawIcon(size, kind));
}

/**
 * Builds /sw.js with what it precaches: the shell, the offline page, the notifications' icons and every script and
 * stylesheet of this build (hashed names), under a version made of their names and the unhashed files' contents. A new
 * build is a new worker, which the browser finds on the next visit (it compares /sw.js byte for byte) and which then
 * takes over.
 */
async function writeWorker(metafile, options = {}) {
  const assets = Object.keys(metafile.outputs).filter((file) => /\.(js|css)$/.test(file)).map(assetUrl).sort();
  const icons = APP_ICONS.filter((icon) => icon.kind !== 'maskable' && icon.size <= 192).map((icon) => `/icons/${icon.file}`);
  const precache = ['/index.html', '/offline.html', '/favicon.svg', ...icons, ...assets];
  // The hashed names stand for their contents; the other files are hashed here.
  const hash = createHash('sha256').update(precache.join('\n'));
  for (const path of precache.filter((url) => !url.startsWith('/assets/'))) hash.update(readFileSync(join(PUBLIC, path)));
  const version = hash.digest('hex').slice(0, 16);
  await esbuild.build({
    entryPoints: { sw: 'src/service-worker/sw.ts' },
    bundle: true,
    format: 'iife',
    outdir: PUBLIC,
    minify: options.minify ?? true,
    sourcemap: true,
    target: spa.target,
    define: { SW_VERSION: JSON.stringify(version), SW_PRECACHE: JSON.stringify(precache) },
    logLevel: 'warning',
  });
}

function newestSource(path) {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestSource(join(path, name))));
}

function upToDate() {
  const built = [join(OUT, 'server.mjs'), join(OUT, 'pglite-worker.mjs'), join(PUBLIC, 'index.html')];
  if (!built.every(existsSync)) return false;
  const oldest = Math.min(...built.map((f) => statSync(f).mtimeMs));
  return Math.max(...SOURCES.map(newestSource)) < oldest;
}

const COMPRESSIBLE = /\.(js|css|map|svg|json|txt|html|webmanifest)$/;

/** Writes file.br and file.gz beside every text file under `dir` where they come out smaller. */
function precompress(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) precompress(path);
    else if (COMPRESSIBLE.test(entry.name)) {
      const plain = readFileSync(path);
      // Source maps are read by developers only: a quicker level keeps the build fast.
      const quality = entry.name.endsWith('.map') ? 6 : 11;
      const br = brotliCompressSync(plain, { params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_SIZE_HINT]: plain.length } });
      const gz = gzipSync(plain, { level: 9 });
      if (br.length < plain.length) writeFileSync(path + '.br', br);
      if (gz.length < plain.length) writeFileSync(path + '.gz', gz);
    }
  }
}

async function buildOnce() {
  const started = performance.now();
  rmSync(PUBLIC, { recursive: true, force: true });
  mkdirSync(PUBLIC, { recursive: true });
  const [spaResult] = await Promise.all([esbuild.build(spa), esbuild.build(server)]);
  writeIndex(spaResult.metafile);
  writeOffline(spaResult.metafile);
  writeIcons();
  await writeWorker(spaResult.metafile);
  precompress(PUBLIC);
  console.log(`built dist/ in ${Math.round(performance.now() - started)} ms`);
}

async function watch() {
  let child = null;
  const restart = () => {
    child?.kill('SIGTERM');
    child = spawn(process.execPath, ['--enable-source-maps', join(OUT, 'server.mjs')], { stdio: 'inherit' });
  };
  const onEnd = (name, after) => ({
    name,
    setup(build) {
      build.onEnd((result) => {
        if (result.errors.length) return;
        return after(result);
      });
    },
  });
  mkdirSync(PUBLIC, { recursive: true });
  writeIcons();
  const pages = (r) => {
    writeIndex(r.metafile);
    writeOffline(r.metafile);
    return writeWorker(r.metafile, { minify: false });
  };
  const spaCtx = await esbuild.context({ ...spa, minify: false, plugins: [onEnd('index', pages)] });
  const serverCtx = await esbuild.context({ ...server, plugins: [onEnd('restart', restart)] });
  await Promise.all([spaCtx.watch(), serverCtx.watch()]);
  console.log('watching for changes…');
}

if (args.has('--watch')) await watch();
else if (args.has('--if-needed') && upToDate()) console.log('dist/ is up to date');
else await buildOnce();
