/**
 * An ask answers keys only this long after it was drawn: Ink draws at most every 33 ms, so a key
 * already on its way when the ask appeared (typed ahead while the call was proposed) arrives inside
 * the window and is dropped instead of answering a prompt the person had not seen.
 */
export const ARM_AFTER_MS = 150;
