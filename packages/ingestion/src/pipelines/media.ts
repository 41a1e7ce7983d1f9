/** Video, audio and images are accepted but not processed yet: the job says so, nothing is made up. */
import { ContentError } from '../errors';
import type { Pipeline } from './types';

const unsupported = (kind: 'video' | 'image' | 'audio', stages: string): Pipeline => ({
  kind,
  async run({ name }) {
    throw new ContentError(
      'UnsupportedContent',
      `${name}: the ${kind} pipeline (${stages}) is not available yet, so ${kind} files cannot be ingested`,
    );
  },
});

export const videoPipeline = unsupported('video', 'transcription, keyframes, captions');
export const imagePipeline = unsupported('image', 'captions, text in the image');
export const audioPipeline = unsupported('audio', 'transcription');
