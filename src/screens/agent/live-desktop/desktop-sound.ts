// The desktop's sound plays through Guacamole's shared AudioContext. Browsers create an AudioContext
// suspended until the page has had a user gesture, and the library's RawAudioPlayer never resumes it, so
// sound that arrives before the user touched the page would stay silent: resume it on each gesture.
import Guacamole from 'guacamole-common-js';

const GESTURES = ['pointerdown', 'keydown', 'touchend'] as const;

/** Resumes the shared audio context on user gestures until the returned function is called. */
export function resumeSoundOnGesture(target: EventTarget = window): () => void {
  const resume = () => {
    const context = Guacamole.AudioContextFactory.getAudioContext();
    if (context?.state === 'suspended') context.resume().catch((error) => console.debug('audio not resumed', error));
  };
  for (const type of GESTURES) target.addEventListener(type, resume, { capture: true, passive: true });
  return () => {
    for (const type of GESTURES) target.removeEventListener(type, resume, { capture: true });
  };
}
