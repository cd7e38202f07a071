// The desktop wing: whether desktops are available, entering an agent's desktop (a single-use tunnel ticket), its
// screenshot, control of its input, and the tunnel itself (a WebSocket the ticket authorises).
import { bool, binary, input, int, json, nullable, obj, oneOfEnum, ref, str, extend, type WingTable } from '../schema.ts';

const STATUS = obj({
  available: bool(), provider: oneOfEnum(['xvnc', 'vnc', 'none']), reason: str({ description: 'Why desktops are unavailable' }),
}, ['reason']);

export const DESKTOP: WingTable = {
  tag: 'desktop',
  description: "The agents' live desktops.",
  schemas: {
    DesktopStatus: STATUS,
    AgentDesktop: extend(STATUS, {
      running: bool(), width: int(), height: int(), viewers: int({ minimum: 0 }),
      control: nullable(str({ description: 'The viewer session that controls the input, if any' })),
    }, ['width', 'height']),
  },
  operations: {
    'WS /desktop/tunnel/:ticket': {
      summary: 'The Guacamole tunnel to a desktop (WebSocket)',
      description: 'The single-use ticket from POST /agents/enter is the authorisation (checked and spent before the upgrade completes).',
      path: { ticket: { schema: str({ pattern: '^[A-Za-z0-9_-]{16,128}$' }), description: 'The ticket' } },
      responses: { 101: { description: 'Switching Protocols: the tunnel is open. A refused ticket closes it with 4000 + the status.' } },
    },
    'GET /desktops/status': { summary: 'Whether this server can run desktops', responses: { 200: json(ref('DesktopStatus')) } },
    'POST /agents/enter': {
      summary: "Start the agent's desktop if needed and hand out a tunnel for one viewer",
      body: input({ agent_id: { type: ['integer', 'string'] } }, ['agent_id']),
      responses: {
        200: json(obj({
          guacamole_tunnel_url: str({ description: '/api/desktop/tunnel/<single-use ticket>' }), session_id: str({ description: "The viewer's session" }),
          width: int(), height: int(),
        })),
      },
      errors: [503],
    },
    'GET /agents/:id/desktop': {
      summary: "The agent's desktop: running, its size, viewers and who controls it", responses: { 200: json(ref('AgentDesktop')) },
    },
    'GET /agents/:id/screenshot': {
      summary: 'A PNG of the live desktop, else the last one stored', responses: { 200: binary('image/png', 'The screenshot') },
    },
    'POST /agents/:id/control': {
      summary: "A viewer takes control of the desktop's input, or gives it back",
      body: input({ session_id: str({ minLength: 1 }), take: bool() }, ['session_id', 'take']),
      responses: { 200: json(obj({ session_id: str(), control: bool({ description: 'Whether that viewer now controls the input' }) })) },
      errors: [409],
    },
  },
};
