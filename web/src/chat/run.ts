/**
 * A chat turn as its AG-UI events tell it: the answer's text as it streams, the hits and their sources of the
 * state snapshot, an orchestration's plan as its sub-agent calls (each with its own hits), and the run's end
 * or error. Frames are read from the server-sent event stream of a run (`id:` and `data:` lines); a frame whose
 * id was already applied is skipped, so no event counts twice.
 */

export interface ChatHit {
  document_id: string;
  source_doc_id?: string;
  text: string;
  score?: number;
}

export interface PlanStep {
  id: string;
  agent: string;
  query: string;
  /** The sub-agent's result, once it is in. */
  result?: unknown;
  hits: ChatHit[];
}

export type TurnState = 'running' | 'done' | 'error' | 'cut';

export interface Turn {
  id: string;
  agent: string;
  question: string;
  answer: string;
  state: TurnState;
  error?: string;
  hits: ChatHit[];
  sources: string[];
  steps: PlanStep[];
  /** The id of the last frame applied. */
  lastEventId?: number;
}

export interface SseFrame {
  id?: string;
  data: string;
}

/** An incremental parser of `text/event-stream` bodies: feed it text, take the complete frames. */
export class SseParser {
  #buffer = '';

  push(text: string): SseFrame[] {
    this.#buffer += text.replace(/\r\n?/g, '\n');
    const frames: SseFrame[] = [];
    for (;;) {
      const end = this.#buffer.indexOf('\n\n');
      if (end < 0) break;
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') id = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) frames.push({ id, data: data.join('\n') });
    }
    return frames;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The hits of a result (a search agent's `results`, or the routed `result`'s). */
export function hitsIn(value: unknown): ChatHit[] {
  if (!isRecord(value)) return [];
  if (Array.isArray(value.results)) {
    return value.results.filter(isRecord).map((hit) => ({
      document_id: String(hit.document_id ?? hit.id ?? ''),
      source_doc_id: typeof hit.source_doc_id === 'string' ? hit.source_doc_id : undefined,
      text: typeof hit.text === 'string' ? hit.text : '',
      score: typeof hit.score === 'number' ? hit.score : undefined,
    }));
  }
  return isRecord(value.result) ? hitsIn(value.result) : [];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function newTurn(id: string, agent: string, question: string): Turn {
  return { id, agent, question, answer: '', state: 'running', hits: [], sources: [], steps: [] };
}

/** The turn after one frame of its run. */
export function applyFrame(turn: Turn, frame: SseFrame): Turn {
  const id = frame.id === undefined ? undefined : Number(frame.id);
  if (id !== undefined && Number.isInteger(id) && turn.lastEventId !== undefined && id <= turn.lastEventId)
    return turn;
  const event = parseJson(frame.data);
  const next: Turn = id !== undefined && Number.isInteger(id) ? { ...turn, lastEventId: id } : { ...turn };
  if (!isRecord(event)) return next;
  switch (event.type) {
    case 'TEXT_MESSAGE_CONTENT':
      next.answer = turn.answer + String(event.delta ?? '');
      break;
    case 'TOOL_CALL_START':
      next.steps = [
        ...turn.steps,
        { id: String(event.toolCallId), agent: String(event.toolCallName ?? 'agent'), query: '', hits: [] },
      ];
      break;
    case 'TOOL_CALL_ARGS':
      next.steps = turn.steps.map((step) =>
        step.id === event.toolCallId ? { ...step, query: step.query + String(event.delta ?? '') } : step,
      );
      break;
    case 'TOOL_CALL_END':
      next.steps = turn.steps.map((step) => {
        if (step.id !== event.toolCallId) return step;
        const args = parseJson(step.query);
        return { ...step, query: isRecord(args) && typeof args.query === 'string' ? args.query : step.query };
      });
      break;
    case 'TOOL_CALL_RESULT': {
      const result = parseJson(String(event.content ?? ''));
      next.steps = turn.steps.map((step) =>
        step.id === event.toolCallId ? { ...step, result, hits: hitsIn(result) } : step,
      );
      break;
    }
    case 'STATE_SNAPSHOT': {
      const snapshot = isRecord(event.snapshot) ? event.snapshot : {};
      next.hits = hitsIn({ results: Array.isArray(snapshot.hits) ? snapshot.hits : [] });
      next.sources = Array.isArray(snapshot.sources) ? [...new Set(snapshot.sources.map(String))] : [];
      break;
    }
    case 'RUN_FINISHED':
      next.state = 'done';
      break;
    case 'RUN_ERROR':
      next.state = 'error';
      next.error = String(event.message ?? 'The run failed');
      break;
  }
  return next;
}

export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** An AG-UI `RunAgentInput` for a turn of `threadId`, the tenant in `forwardedProps` for the web server. */
export function runInput(
  tenantId: string,
  threadId: string,
  runId: string,
  history: HistoryMessage[],
  question: string,
) {
  const messages = [...history.slice(-20), { role: 'user' as const, content: question }].map(
    (message, index) => ({ id: `${runId}_${index}`, ...message }),
  );
  return {
    threadId,
    runId,
    state: {},
    messages,
    tools: [],
    context: [],
    forwardedProps: { tenant_id: tenantId },
  };
}

export interface StoredMessage {
  role: 'user' | 'assistant';
  content: string;
  agent?: string;
}

export type ThreadEntry =
  | { kind: 'stored'; message: StoredMessage; index: number }
  | { kind: 'turn'; turn: Turn };

/**
 * The thread as shown: its stored messages, with each turn of this visit in place of the stored pair it
 * became (so a turn is never shown twice), and turns the store does not have yet after them.
 */
export function mergeThread(stored: StoredMessage[], turns: Turn[]): ThreadEntry[] {
  const entries: ThreadEntry[] = stored.map((message, index) => ({ kind: 'stored', message, index }));
  const pending: Turn[] = [];
  let cursor = 0;
  for (const turn of turns) {
    let found = -1;
    for (let i = cursor; i < entries.length - 1; i++) {
      const user = entries[i]!;
      const reply = entries[i + 1]!;
      if (
        user.kind === 'stored' &&
        reply.kind === 'stored' &&
        user.message.role === 'user' &&
        user.message.content === turn.question.trim() &&
        reply.message.role === 'assistant' &&
        (turn.state !== 'done' || reply.message.content === turn.answer)
      ) {
        found = i;
        break;
      }
    }
    if (found < 0) {
      pending.push(turn);
      continue;
    }
    // A turn cut off mid-stream takes the answer the store kept whole.
    const answer = turn.state === 'done' ? turn.answer : storedAnswer(entries[found + 1]);
    entries.splice(found, 2, { kind: 'turn', turn: { ...turn, answer, state: 'done', error: undefined } });
    cursor = found + 1;
  }
  return [...entries, ...pending.map((turn): ThreadEntry => ({ kind: 'turn', turn }))];
}

function storedAnswer(entry: ThreadEntry | undefined): string {
  return entry?.kind === 'stored' ? entry.message.content : '';
}

export interface AnswerBlock {
  kind: 'text' | 'code';
  text: string;
  /** A code block's file (a coding agent's `path:` line before it). */
  file?: string;
  language?: string;
}

/** An answer's text split into paragraphs and fenced code blocks; a `path:` line names the block's file. */
export function answerBlocks(answer: string): AnswerBlock[] {
  const blocks: AnswerBlock[] = [];
  const fence = /```([\w+#.-]*)\n([\s\S]*?)(?:\n```|$)/g;
  let last = 0;
  for (let match = fence.exec(answer); match; match = fence.exec(answer)) {
    let before = answer.slice(last, match.index);
    let file: string | undefined;
    const named = /(?:^|\n)([^\n`]{1,300}):\n?$/.exec(before);
    if (named && /[./]/.test(named[1]!) && !/\s/.test(named[1]!.trim())) {
      file = named[1]!.trim();
      before = before.slice(0, named.index);
    }
    pushText(blocks, before);
    blocks.push({ kind: 'code', text: match[2]!, language: match[1] || undefined, file });
    last = fence.lastIndex;
  }
  pushText(blocks, answer.slice(last));
  return blocks;
}

function pushText(blocks: AnswerBlock[], text: string): void {
  for (const paragraph of text.split(/\n\s*\n/)) {
    if (paragraph.trim() !== '') blocks.push({ kind: 'text', text: paragraph.trim() });
  }
}
