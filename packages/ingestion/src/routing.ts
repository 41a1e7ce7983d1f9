/** Which profile and pipeline a file goes to: document 1's extension table, or the profile the caller named. */
import path from 'node:path';
import { BadRequestError } from '@tessera/core';
import type { Profile, ProfileSource } from '@tessera/search';
import { codePipeline } from './pipelines/code';
import { documentPipeline } from './pipelines/documents';
import { audioPipeline, imagePipeline, videoPipeline } from './pipelines/media';
import type { Pipeline } from './pipelines/types';

const pipelines: Record<string, Pipeline> = {
  document: documentPipeline,
  code: codePipeline,
  video: videoPipeline,
  image: imagePipeline,
  audio: audioPipeline,
};

export function extensionOf(name: string): string {
  return path.extname(name).toLowerCase();
}

/** Refuses a profile that cannot be ingested into: it names no model loader to embed its documents with. */
function ingestible(profile: Profile): Profile {
  if (!profile.model_loader) {
    throw new BadRequestError(
      `Profile '${profile.profile_name}' cannot be ingested into: it names no model_loader (one of colbert, colpali, colqwen, xclip), so its documents cannot be embedded; it can only be deployed`,
    );
  }
  return profile;
}

/**
 * The profile a file is indexed with, among the tenant's (`catalog`: its own, then the shipped ones); a 400
 * naming the problem when there is none or it does not fit.
 */
export function profileFor(catalog: ProfileSource, name: string, requested?: string): Profile {
  const extension = extensionOf(name);
  if (requested) {
    const profile = catalog.get(requested);
    if (!profile) {
      throw new BadRequestError(
        `Unknown profile '${requested}'; available: ${catalog
          .list()
          .map((p) => p.profile_name)
          .join(', ')}`,
      );
    }
    ingestible(profile);
    if (!pipelines[profile.type] || !profile.extensions.includes(extension)) {
      throw new BadRequestError(
        `Profile '${requested}' cannot ingest ${extension ? `'${extension}'` : 'extension-less'} files (${name}); it takes ${profile.extensions.join(' ') || 'no uploads'}`,
      );
    }
    return profile;
  }
  const profile = catalog.forExtension(extension);
  if (profile) ingestible(profile);
  if (!profile || !pipelines[profile.type]) {
    const known = catalog
      .list()
      .filter((p) => pipelines[p.type])
      .flatMap((p) => p.extensions);
    throw new BadRequestError(
      `No profile ingests ${extension ? `'${extension}'` : 'extension-less'} files (${name}); supported: ${[...new Set(known)].join(' ')}`,
    );
  }
  return profile;
}

export function pipelineFor(profile: Profile): Pipeline {
  return pipelines[profile.type]!;
}

/** Whether a file is read from a spooled local file (media) rather than held in memory. */
export function readsFile(profile: Profile): boolean {
  return pipelineFor(profile).reads === 'file';
}
