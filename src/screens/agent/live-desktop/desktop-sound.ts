// The desktop's sound plays through Guacamole's shared AudioContext, which the library's RawAudioPlayer
// makes when the first sound arrives. Browsers create an AudioContext suspended until the page has had a
// user gesture, and the player never resumes it, so sound that arrives before the user touched the page
// would stay silent: resume it on each gesture. A gesture never makes one: a running context keeps the
// browser's audio threads waking every few ms for as long as the page is open, sound or not (in the
// desktop bench they took the CPU from our server ~1.4 times a second), and most desktops never make a sound.
import Guacamole from 'guacamole-common-js';

const GESTURES = ['pointerdown', 'keydown', 'touchend'] as const;

/** Resumes the shared audio context on user gestures until the returned function is called. */
export function resumeSoundOnGesture(target: EventTarget = window): () => void {
  const resume = () => {
    const context = Guacamole.AudioContextFactory.singleton;
    if (context?.state === 'suspended') context.resume().catch((error) => console.debug('audio not resumed', error));
  };
  for (const type of GESTURES) target.addEventListener(type, resume, { capture: true, passive: true });
  return () => {
    for (const type of GESTURES) target.removeEventListener(type, resume, { capture: true });
  };
}
