// Node module hook: .ts/.tsx go through esbuild's transform (types stripped, JSX compiled),
// .sql files load as text (as build.mjs bundles them). No type checking here: `tsc` does that.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

export async function load(url, context, next) {
  if (!url.startsWith('file:')) return next(url, context);
  const path = fileURLToPath(url);
  if (/\.tsx?$/.test(path)) {
    const { code } = await transform(await readFile(path, 'utf8'), {
      loader: path.endsWith('x') ? 'tsx' : 'ts',
      format: 'esm',
      jsx: 'automatic',
      target: 'node20',
      sourcemap: 'inline',
      sourcefile: path,
    });
    return { format: 'module', source: code, shortCircuit: true };
  }
  if (path.endsWith('.sql')) {
    const text = await readFile(path, 'utf8');
    return { format: 'module', source: `export default ${JSON.stringify(text)};`, shortCircuit: true };
  }
  return next(url, context);
}
