// The runner wing's door: what the rest of the server uses of it.
export { Runner } from './runner.ts';
