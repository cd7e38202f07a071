// Lets Node run the project's TypeScript directly in tests: `node --import ./test/setup/register.mjs`.
import { register } from 'node:module';
register('./ts-loader.mjs', import.meta.url);
