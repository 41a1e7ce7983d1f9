/**
 * `tessera index`'s uploads: the walked files in batches through `/ingestion/upload`, each answered per
 * file; a file too large for a request of its own goes through a presigned upload (`/ingestion/uploads`).
 */
import { readFile } from 'node:fs/promises';
import { Ingestion } from '@tessera/api';
import { MAX_BINARY_BODY_BYTES } from '@tessera/core';
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

/**
 * Files an upload carries, and bytes. A multipart body reaches the function base64-encoded, which leaves
 * 4,669,440 bytes of it within Lambda's request limit (MAX_BINARY_BODY_BYTES); 4 MiB of files leaves the
 * rest for the form's framing (about 200 bytes a file). A file over it goes up on its own, presigned.
 */
const BATCH_FILES = 256;
export const BATCH_BYTES = 4 * 1024 * 1024;
/** Room the multipart framing of a full batch may take (BATCH_FILES parts, their names and headers). */
export const FRAMING_BYTES = MAX_BINARY_BODY_BYTES - BATCH_BYTES;

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
  // The server stops waiting after ~25 s and answers the queued job; a longer job is followed through its status.
  return answer.status === 'queued' ? settled(client, answer.job_id) : answer;
}

/**
 * Uploads one file through a presigned URL: the server registers the job and signs a PUT to the bucket,
 * the file goes straight there (no API request carries it), and its arrival starts the job.
 */
async function uploadPresigned(
  client: RuntimeClient,
  tenant: string,
  file: WalkedFile,
): Promise<Ingestion.UploadResult> {
  const bytes = await readFile(file.absolute);
  const presigned = readAnswer(
    Ingestion.Presigned,
    await client.post('/ingestion/uploads', {
      tenant_id: tenant,
      filename: file.relative,
      size: bytes.length,
    }),
    '/ingestion/uploads',
  );
  // fetch sets the length from the body itself.
  const { 'content-length': _, ...headers } = presigned.upload.headers;
  let response: Response;
  try {
    response = await fetch(presigned.upload.url, {
      method: presigned.upload.method,
      headers,
      body: bytes,
      signal: AbortSignal.timeout(300_000),
    });
  } catch (error) {
    throw new CliError(`The presigned upload of ${file.relative} failed: ${(error as Error).message}`);
  }
  if (!response.ok) {
    const reason = (await response.text()).replace(/\s+/g, ' ').slice(0, 200);
    throw new CliError(
      `The presigned upload of ${file.relative} was refused: ${reason} (HTTP ${response.status})`,
      response.status,
    );
  }
  return settled(client, presigned.job_id);
}

/** The job's result once it ended, followed through its status. */
async function settled(client: RuntimeClient, jobId: string): Promise<Ingestion.UploadResult> {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const path = `/ingestion/${jobId}/events`;
    const status = readAnswer(Ingestion.JobStatus, await client.get(path, {}), path);
    if (status.result) return status.result;
    if (['failed', 'cancelled'].includes(status.state)) {
      throw new CliError(`Ingestion job ${jobId} ${status.state}: ${status.error ?? 'no reason given'}`);
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
  const alone = files.length === 1 ? files[0]! : undefined;
  try {
    const answer =
      alone && alone.size > BATCH_BYTES
        ? await uploadPresigned(client, tenant, alone)
        : await upload(client, tenant, files);
    done.outcomes = answer.files;
  } catch (error) {
    if (!(error instanceof CliError && REFUSED_CONTENT.has(error.status ?? 0))) throw error;
    if (alone) {
      let refusal = error;
      // Too large for a request (a server whose limit is lower): the presigned route takes any size.
      if (error.status === 413 && alone.size <= BATCH_BYTES) {
        try {
          done.outcomes = (await uploadPresigned(client, tenant, alone)).files;
          return done;
        } catch (presignError) {
          if (!(presignError instanceof CliError && REFUSED_CONTENT.has(presignError.status ?? 0)))
            throw presignError;
          refusal = presignError;
        }
      }
      done.errors.push({ path: alone.relative, message: refusal.message });
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
