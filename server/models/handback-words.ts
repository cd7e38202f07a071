// How a hand-back opens, as the model reads it: the supervision wing writes these words
// (supervision/handback-format.ts) and the offline model recognises them, so they live below both.
export const HANDBACK_PREFIX = 'While you were paused, the person';
export const HANDBACK_SCREEN_CAPTION = 'The desktop as the person handed it back:';
