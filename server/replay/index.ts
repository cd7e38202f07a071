// Runs replayed (issue 44): the door the rest of the server comes in by.
//   run-recordings.ts  records each run's desktop (recorder.ts writes the Guacamole recording), quota, retention
//   runs-read.ts       a thread's runs, one run and who may see it
//   markers.ts         the run's timeline: model calls, actions, messages, help, take-overs, mail, errors
//   shares.ts          read-only links that expire
//   recording-file.ts  the recording over HTTP: gzip as stored, Range; routes.ts the API and the fleet's streaming
export { RunRecordings } from './run-recordings.ts';
export { registerReplayRoutes, Replays, type ReplayDeps } from './routes.ts';
