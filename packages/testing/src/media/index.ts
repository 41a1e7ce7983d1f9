/** Media for tests, made on the spot (espeak-ng speech, ffmpeg-drawn scenes and text images), and loopback inference servers. */
export * from './fixtures';
export * from './servers';
