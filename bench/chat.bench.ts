/**
 * Chat figures: time to the first streamed token of `POST /v1/chat/completions` (`stream: true`) through the
 * local runtime with fast agents (text analysis; search over a small tenant), with and without a
 * conversation (whose history is read before the run and whose turn is stored before the last chunk), and
 * with an agent whose answer the tenant's LLM writes (the summarizer against a loopback OpenAI-compatible
 * server that streams its answer at once, and one that paces its pieces, whose tokens reach the client as
 * they are written): the first byte (the role chunk), the first content token, and `[DONE]`. Target: first
 * token p99 ≤ 200 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openAIChat, startServer } from '@tessera/testing';
import { startRuntime } from './admin.bench';

const TURNS = Number(process.env.BENCH_CHAT_TURNS ?? 200);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

function row(name: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const cell = (value: number) => value.toFixed(1).padStart(8);
  return `${name.padEnd(52)} ${cell(percentile(sorted, 50))} ${cell(percentile(sorted, 99))} ${cell(sorted.at(-1)!)}`;
}

interface Timing {
  firstByte: number;
  firstToken: number;
  done: number;
}

async function streamedTurn(url: string, body: Record<string, unknown>): Promise<Timing> {
  const started = performance.now();
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tessera-tenant': 'bench' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  if (response.status !== 200) throw new Error(`chat answered ${response.status}: ${await response.text()}`);
  const reader = response.body!.getReader();
  let buffer = '';
  let firstByte = 0;
  let firstToken = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    firstByte ||= performance.now() - started;
    buffer += Buffer.from(value).toString();
    if (!firstToken && /"delta":\{"content":"[^"]/.test(buffer)) firstToken = performance.now() - started;
    if (buffer.includes('"error":')) throw new Error(`chat stream failed: ${buffer.slice(-500)}`);
  }
  if (!buffer.trimEnd().endsWith('data: [DONE]'))
    throw new Error(`chat stream did not end: ${buffer.slice(-300)}`);
  return { firstByte, firstToken, done: performance.now() - started };
}

/** The summarizer's answer: about 600 characters, streamed in pieces of 8 (the first one at once). */
const SUMMARY = Array.from(
  { length: 10 },
  (_, i) => `Merge insert ${i} updates matching rows and inserts the others.`,
).join(' ');
/** Milliseconds between the pieces of the paced LLM's answer. */
const PACE_MS = 10;

export async function chatBench(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'tessera-chat-bench-'));
  const runtime = await startRuntime(dataDir);
  const llm = await startServer(
    openAIChat((request) => ({
      content: { summary: SUMMARY },
      intervalMs: request.messages.at(-1)!.content.includes('paced') ? PACE_MS : 0,
    })),
  );
  try {
    const headers = { 'content-type': 'application/json' };
    await fetch(`${runtime.url}/admin/tenants`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ tenant_id: 'bench' }),
    });
    const upload = new FormData();
    upload.set('tenant_id', 'bench');
    upload.set('profile', 'document_text_semantic');
    const text = Array.from(
      { length: 40 },
      (_, i) =>
        `## Note ${i}\n\nMerge insert ${i} updates the rows whose key matches and inserts the others; deletes mark rows and compaction ${i} frees them.`,
    ).join('\n\n');
    upload.append('file', new Blob([text]), 'notes.md');
    const uploaded = await fetch(`${runtime.url}/ingestion/upload?wait=true`, {
      method: 'POST',
      body: upload,
    });
    if (uploaded.status >= 300)
      throw new Error(`upload answered ${uploaded.status}: ${await uploaded.text()}`);

    const llmRecord = await fetch(`${runtime.url}/admin/tenants/bench/config/llm`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ model: 'openai/bench', api_base: `${llm.url}/v1` }),
    });
    if (!llmRecord.ok) throw new Error(`llm record: ${llmRecord.status} ${await llmRecord.text()}`);

    const cases: [string, (i: number) => Record<string, unknown>, number?][] = [
      [
        'text_analysis_agent, no conversation',
        (i) => ({
          model: 'tessera/text_analysis_agent',
          messages: [{ role: 'user', content: `Ada Lovelace wrote notes in London, turn ${i}.` }],
        }),
      ],
      [
        'text_analysis_agent, in a conversation',
        (i) => ({
          model: 'tessera/text_analysis_agent',
          metadata: { context_id: `bench_${i % 10}` },
          messages: [{ role: 'user', content: `Ada Lovelace wrote notes in London, turn ${i}.` }],
        }),
      ],
      [
        'search_agent (40 chunks), in a conversation',
        (i) => ({
          model: 'tessera/search_agent',
          metadata: { context_id: `bench_search_${i % 10}` },
          messages: [{ role: 'user', content: `merge insert compaction ${i % 40}` }],
        }),
      ],
      [
        'summarizer_agent (LLM streams at once), in a conversation',
        (i) => ({
          model: 'tessera/summarizer_agent',
          metadata: { context_id: `bench_llm_${i % 10}` },
          messages: [{ role: 'user', content: `summarize merge insert ${i % 40}` }],
        }),
      ],
      [
        `summarizer_agent (LLM paced, ${PACE_MS} ms a piece of 8 characters)`,
        (i) => ({
          model: 'tessera/summarizer_agent',
          messages: [{ role: 'user', content: `summarize merge insert ${i % 40}, paced` }],
        }),
        Math.min(TURNS, 40),
      ],
    ];
    console.log(`\nChat: ${TURNS} streamed turns per case through the runtime, ms`);
    console.log(`${''.padEnd(52)} ${'p50'.padStart(8)} ${'p99'.padStart(8)} ${'max'.padStart(8)}`);
    for (const [name, body, turns = TURNS] of cases) {
      for (let i = 0; i < 10; i++) await streamedTurn(runtime.url, body(i)); // warm
      const timings: Timing[] = [];
      for (let i = 0; i < turns; i++) timings.push(await streamedTurn(runtime.url, body(i)));
      console.log(`${name} (${turns} turns)`);
      console.log(
        row(
          '  first byte (role chunk)',
          timings.map((t) => t.firstByte),
        ),
      );
      console.log(
        row(
          '  first token (first content chunk)',
          timings.map((t) => t.firstToken),
        ),
      );
      console.log(
        row(
          '  [DONE]',
          timings.map((t) => t.done),
        ),
      );
    }
  } finally {
    await llm.close();
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
