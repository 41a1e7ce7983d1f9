/** Entity extraction by a GLiNER sidecar: `POST <url>/predict_entities` with `{text, labels, threshold}`. */

import { isTimeout, networkMessage } from '@tessera/core';
import { z } from 'zod';
import { EntityExtractionError } from './errors';
import { filterEntities } from './filter';
import { shorten } from './http';
import type { EntityExtractor, ExtractedEntity, ExtractionContext } from './types';
import { ENTITY_LABELS, type EntityLabel } from './vocabulary';

export interface GlinerEntityExtractorOptions {
  /** The sidecar's base URL; `/predict_entities` is appended. */
  url: string;
  /** Minimum score the model keeps. Default 0.5. */
  threshold?: number;
  /** Per-request timeout. Default 30 s. */
  timeoutMs?: number;
  /** Labels asked for. Default all 15. */
  labels?: readonly EntityLabel[];
}

const Answer = z.object({
  entities: z.array(
    z.object({
      text: z.string(),
      label: z.string(),
      score: z.number(),
      start: z.number().int(),
      end: z.number().int(),
    }),
  ),
});

export class GlinerEntityExtractor implements EntityExtractor {
  readonly name: string;
  readonly labels: readonly EntityLabel[];
  private readonly endpoint: string;
  private readonly threshold: number;
  private readonly timeoutMs: number;

  constructor(options: GlinerEntityExtractorOptions) {
    this.endpoint = `${options.url.replace(/\/+$/, '')}/predict_entities`;
    this.name = `gliner:${options.url}`;
    this.labels = options.labels ?? ENTITY_LABELS;
    this.threshold = options.threshold ?? 0.5;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  async extract(text: string, context: ExtractionContext): Promise<ExtractedEntity[]> {
    if (text.trim() === '') return [];
    const fail = (reason: string, cause?: unknown): never => {
      throw new EntityExtractionError(
        this.name,
        context,
        `GLiNER service at ${this.endpoint} ${reason}`,
        cause,
      );
    };
    let response: Response;
    let body: string;
    try {
      response = await fetch(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ text, labels: this.labels, threshold: this.threshold }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      body = await response.text();
    } catch (error) {
      return fail(
        isTimeout(error)
          ? `did not answer within ${this.timeoutMs} ms`
          : `did not answer: ${networkMessage(error)}`,
        error,
      );
    }
    if (!response.ok) return fail(`answered ${response.status}: ${shorten(body) || response.statusText}`);
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch (error) {
      return fail(`answered with something that is not JSON: ${shorten(body)}`, error);
    }
    const parsed = Answer.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return fail(`answered out of contract: ${issue.path.join('.') || 'body'}: ${issue.message}`);
    }
    const asked = new Set<string>(this.labels);
    const entities: ExtractedEntity[] = [];
    for (const entity of parsed.data.entities) {
      // A label not asked for is not one of ours; scores are clamped to the schema's range.
      if (!asked.has(entity.label)) continue;
      entities.push({
        ...entity,
        label: entity.label as EntityLabel,
        score: Math.min(1, Math.max(0, entity.score)),
      });
    }
    return filterEntities(text, entities);
  }
}
