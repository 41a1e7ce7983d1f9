/** `tessera index`'s uploads: the walked files in batches through `/ingestion/upload`, each answered per file. */
import { readFile } from 'node:fs/promises';
import { Ingestion } from '@tessera/api';
import { z } from 'zod';
import type { RuntimeClient } from './client';
import { CliError } from './errors';
import { readAnswer } from './graph-api';
import type { WalkedFile } from './walk';

export interface IndexError {
  path: string;
  message: string;
}

/** What one file of a batch came to. */
export type FileOutcome = Ingestion.FileResult;

/** The upload's answer: the ended job (200), or the job still queued or running (202). */
const UploadAnswer = z.union([Ingestion.UploadResult, Ingestion.StillRunning, Ingestion.Submitted]);

/** Files an upload carries, and bytes: small enough for the API's 10 MB body limit. */
const BATCH_FILES = 256;
const BATCH_BYTES = 8 * 1024 * 1024;

/** The files in upload batches, in walk order. */
export function batches(files: WalkedFile[]): WalkedFile[][] {
  const result: WalkedFile[][] = [];
  let current: WalkedFile[] = [];
  let bytes = 0;
  for (const file of files) {
    if (current.length > 0 && (current.length >= BATCH_FILES || bytes + file.size > BATCH_BYTES)) {
      result.push(current);
      current = [];
      bytes = 0;
    }
    current.push(file);
    bytes += file.size;
  }
  if (current.length > 0) result.push(current);
  return result;
}

/** Uploads one batch and answers the job's per-file outcome once the job ended. */
async function upload(
  client: RuntimeClient,
  tenant: string,
  files: WalkedFile[],
): Promise<Ingestion.UploadResult> {
  const form = new FormData();
  form.set('tenant_id', tenant);
  form.set('wait', 'true');
  for (const file of files) {
    form.append('file', new Blob([await readFile(file.absolute)]), file.relative);
  }
  const answer = readAnswer(
    UploadAnswer,
    await client.postForm('/ingestion/upload', form, 120_000),
    '/ingestion/upload',
  );
  if (answer.status !== 'queued') return answer;
  // The server stops waiting after ~25 s and answers the queued job; a longer job is followed through its status.
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const path = `/ingestion/${answer.job_id}/events`;
    const status = readAnswer(Ingestion.JobStatus, await client.get(path, {}), path);
    if (status.result) return status.result;
    if (['failed', 'cancelled'].includes(status.state)) {
      throw new CliError(
        `Ingestion job ${answer.job_id} ${status.state}: ${status.error ?? 'no reason given'}`,
      );
    }
  }
}

/** Statuses that refuse what a request carries (a file over the cap, an empty file), not the run. */
const REFUSED_CONTENT = new Set([400, 413, 415, 422]);

/**
 * Uploads a batch. When the server refuses it for what it carries, each file goes up alone, so that one
 * refused file is reported with its reason and the others are indexed.
 */
export async function uploadBatch(
  client: RuntimeClient,
  tenant: string,
  files: WalkedFile[],
): Promise<{ outcomes: FileOutcome[]; errors: IndexError[] }> {
  const done: { outcomes: FileOutcome[]; errors: IndexError[] } = { outcomes: [], errors: [] };
  try {
    done.outcomes = (await upload(client, tenant, files)).files;
  } catch (error) {
    if (!(error instanceof CliError && REFUSED_CONTENT.has(error.status ?? 0))) throw error;
    if (files.length === 1) {
      done.errors.push({ path: files[0]!.relative, message: error.message });
      return done;
    }
    for (const file of files) {
      const alone = await uploadBatch(client, tenant, [file]);
      done.outcomes.push(...alone.outcomes);
      done.errors.push(...alone.errors);
    }
  }
  return done;
}
