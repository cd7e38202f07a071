// The runner wing's door: what the rest of the server uses of it.
export { Runner } from './runner.ts';
export type { OpenRun, RecordRun, RunOutcome, RunRecording } from './runs.ts';
export type { VaultPort } from './runner.ts';
export { describeAction } from './tools/computer.ts';
