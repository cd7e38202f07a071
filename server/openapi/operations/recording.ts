// The recording wing (spec section 7 "Screenshare"): recording a demonstration on the agent's desktop, and its audio.
import { bool, id, input, int, json, nullable, obj, str, time, type WingTable } from '../schema.ts';

const RECORDING = obj({
  session_id: str(), agent_id: id(), thread_id: nullable(id()), is_recording: bool(), started_at: time(), stopped_at: nullable(time()),
  duration_seconds: nullable(int({ minimum: 0 })), auto_stopped: bool({ description: 'Stopped by the server, not the person' }),
});
const AGENT_ID = { agent_id: { type: ['integer', 'string'] } };

export const RECORDING_TABLE: WingTable = {
  tag: 'recording',
  description: 'Recording a demonstration on an agent\'s desktop.',
  schemas: { Recording: RECORDING },
  operations: {
    'POST /screenshare/start-recording': {
      summary: "Start recording the agent's desktop (the summary goes to thread_id, else a new thread)",
      body: input({ ...AGENT_ID, thread_id: { type: ['integer', 'string', 'null'] } }, ['agent_id']),
      responses: { 200: json({ $ref: '#/components/schemas/Recording' }) },
    },
    'POST /screenshare/stop-recording': {
      summary: "Stop that session, else the caller's running recording of the agent",
      body: input({ ...AGENT_ID, session_id: str() }, ['agent_id']),
      responses: { 200: json({ $ref: '#/components/schemas/Recording' }) },
      errors: [409],
    },
    'POST /screenshare/audio-final': {
      summary: "The recording's audio (raw body)",
      headers: { 'X-Session-Id': { schema: str({ minLength: 1 }), required: true, description: 'The recording session' } },
      body: {
        content: {
          'audio/ogg': { schema: { type: 'string', contentMediaType: 'audio/ogg' } },
          'audio/webm': { schema: { type: 'string', contentMediaType: 'audio/webm' } },
        },
      },
      responses: { 202: json(obj({ session_id: str(), received_bytes: int({ minimum: 0 }) }), 'Taken') },
      errors: [409, 415],
    },
  },
};
