// The desktop's sound plays through Guacamole's shared AudioContext, which the library's RawAudioPlayer
// makes when the first sound arrives. A running context keeps the browser's audio threads waking every few
// ms for as long as it runs, sound or not (in the desktop bench they took the CPU from our server ~1.4
// times a second), and most desktops are quiet most of the time. So no gesture makes one, and after
// QUIET_MS without a sound the context is suspended; the next sound resumes it before it is played.
// Browsers also create an AudioContext suspended until the page has had a user gesture, and the player
// never resumes it, so sound that arrived before the user touched the page would stay silent: a gesture
// resumes a context that the browser held back while a sound is playing (none resumes it for quiet).
import Guacamole from 'guacamole-common-js';

const GESTURES = ['pointerdown', 'keydown', 'touchend'] as const;
/** Silence after which the context is suspended; the player schedules at most 0.3 s ahead. */
const QUIET_MS = 5000;

// One shared context, so one state for the page: whether a sound came within the quiet spell, and the
// context suspended for quiet (it ran, so the page may resume it without a gesture).
const quiet = { timer: undefined as ReturnType<typeof setTimeout> | undefined, sounding: false, suspended: null as AudioContext | null };

/** Plays the client's audio streams with the library's player, and suspends the context between sounds. */
export function playDesktopSound(client: Guacamole.Client, quietMs = QUIET_MS): void {
  client.onaudio = (stream, mimetype) => {
    const player = Guacamole.AudioPlayer.getInstance(stream, mimetype);
    if (!player) return null;
    const play = stream.onblob; // the player's reader
    stream.onblob = (data) => {
      heard(quietMs);
      play?.(data);
    };
    return player;
  };
}

function heard(quietMs: number): void {
  // Even while its suspend is still under way (its state still says running): the browser runs the two in order.
  if (quiet.suspended && quiet.suspended === Guacamole.AudioContextFactory.singleton) {
    quiet.suspended.resume().catch((error) => console.debug('audio not resumed', error));
  }
  quiet.suspended = null;
  quiet.sounding = true;
  clearTimeout(quiet.timer);
  quiet.timer = setTimeout(() => {
    quiet.sounding = false;
    const context = Guacamole.AudioContextFactory.singleton;
    if (context?.state !== 'running') return;
    quiet.suspended = context;
    context.suspend().catch((error) => console.debug('audio not suspended', error));
  }, quietMs);
}

function resume(): void {
  const context = Guacamole.AudioContextFactory.singleton;
  if (context?.state === 'suspended') context.resume().catch((error) => console.debug('audio not resumed', error));
}

/** Resumes the shared audio context on user gestures while a sound plays, until the returned function is called. */
export function resumeSoundOnGesture(target: EventTarget = window): () => void {
  const held = () => quiet.sounding && resume();
  for (const type of GESTURES) target.addEventListener(type, held, { capture: true, passive: true });
  return () => {
    for (const type of GESTURES) target.removeEventListener(type, held, { capture: true });
  };
}
