import { describe, expect, it } from 'vitest';
import {
  answerBlocks,
  applyFrame,
  mergeThread,
  newTurn,
  runInput,
  SseParser,
  type Turn,
} from '../src/chat/run';

const frame = (id: number, event: Record<string, unknown>) => `id: ${id}\ndata: ${JSON.stringify(event)}\n\n`;

const orchestration = [
  frame(0, { type: 'RUN_STARTED', threadId: 't', runId: 'r' }),
  frame(1, { type: 'TOOL_CALL_START', toolCallId: 'r_step_0', toolCallName: 'search_agent' }),
  frame(2, { type: 'TOOL_CALL_ARGS', toolCallId: 'r_step_0', delta: '{"query":' }),
  frame(3, { type: 'TOOL_CALL_ARGS', toolCallId: 'r_step_0', delta: '"radium"}' }),
  frame(4, { type: 'TOOL_CALL_END', toolCallId: 'r_step_0' }),
  frame(5, {
    type: 'TOOL_CALL_RESULT',
    toolCallId: 'r_step_0',
    content: JSON.stringify({
      results: [{ document_id: 'd1', source_doc_id: 'curie.md', text: 'Radium', score: 0.9 }],
    }),
  }),
  frame(6, {
    type: 'STATE_SNAPSHOT',
    snapshot: {
      hits: [{ document_id: 'd1', source_doc_id: 'curie.md', text: 'Radium' }],
      sources: ['d1', 'd1'],
    },
  }),
  frame(7, { type: 'TEXT_MESSAGE_START', messageId: 'm' }),
  frame(8, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'Radium was ' }),
  frame(9, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'discovered.' }),
  frame(10, { type: 'TEXT_MESSAGE_END', messageId: 'm' }),
  frame(11, { type: 'RUN_FINISHED', threadId: 't', runId: 'r' }),
].join('');

function play(text: string, chunk: number, turn = newTurn('r', 'orchestrator_agent', 'radium?')): Turn {
  const parser = new SseParser();
  for (let i = 0; i < text.length; i += chunk)
    for (const f of parser.push(text.slice(i, i + chunk))) turn = applyFrame(turn, f);
  return turn;
}

describe('chat turns from AG-UI events', () => {
  it('builds the answer, the plan with each agent’s hits, and the hits with their sources, whatever the chunking', () => {
    for (const chunk of [1, 7, 64, orchestration.length]) {
      const turn = play(orchestration, chunk);
      expect(turn.state).toBe('done');
      expect(turn.answer).toBe('Radium was discovered.');
      expect(turn.steps).toEqual([
        {
          id: 'r_step_0',
          agent: 'search_agent',
          query: 'radium',
          result: expect.any(Object),
          hits: [{ document_id: 'd1', source_doc_id: 'curie.md', text: 'Radium', score: 0.9 }],
        },
      ]);
      expect(turn.hits.map((hit) => hit.source_doc_id)).toEqual(['curie.md']);
      expect(turn.sources).toEqual(['d1']);
    }
  });

  it('applies no frame twice', () => {
    const parser = new SseParser();
    const frames = parser.push(orchestration);
    let turn = newTurn('r', 'a', 'q');
    for (const f of [...frames.slice(0, 10), ...frames.slice(7)]) turn = applyFrame(turn, f);
    expect(turn.answer).toBe('Radium was discovered.');
  });

  it('says what a failed run said, and parses CRLF frames and comments', () => {
    const parser = new SseParser();
    const frames = parser.push(
      `: keep-alive\r\n\r\nid: 0\r\ndata: {"type":"RUN_STARTED"}\r\n\r\nid: 1\r\ndata: {"type":"RUN_ERROR","message":"LLM unavailable"}\r\n\r\n`,
    );
    const turn = frames.reduce(applyFrame, newTurn('r', 'a', 'q'));
    expect(turn).toMatchObject({ state: 'error', error: 'LLM unavailable' });
  });

  it('sends the thread’s last messages and the tenant for the web server', () => {
    const history = Array.from({ length: 30 }, (_, i) => ({
      role: (i % 2 === 0 ? 'user' : 'assistant') as 'user' | 'assistant',
      content: `m${i}`,
    }));
    const input = runInput('acme:prod', 'web-1', 'run-1', history, 'next?');
    expect(input.messages).toHaveLength(21);
    expect(input.messages.at(-1)).toEqual({ id: 'run-1_20', role: 'user', content: 'next?' });
    expect(input.forwardedProps).toEqual({ tenant_id: 'acme:prod' });
  });
});

describe('a thread as shown', () => {
  const done = {
    ...newTurn('r1', 'search_agent', 'radium?'),
    answer: 'Found 1 result',
    state: 'done' as const,
  };

  it('puts a turn of this visit in place of the stored pair it became, never twice', () => {
    const stored = [
      { role: 'user' as const, content: 'hello' },
      { role: 'assistant' as const, content: 'hi' },
      { role: 'user' as const, content: 'radium?' },
      { role: 'assistant' as const, content: 'Found 1 result', agent: 'search_agent' },
    ];
    const entries = mergeThread(stored, [done]);
    expect(entries.map((e) => e.kind)).toEqual(['stored', 'stored', 'turn']);
    // Not yet stored: after the stored messages.
    expect(mergeThread(stored.slice(0, 2), [done]).map((e) => e.kind)).toEqual(['stored', 'stored', 'turn']);
  });

  it('mends a turn cut mid-stream with the answer the store kept', () => {
    const cut = {
      ...newTurn('r2', 'search_agent', 'polonium?'),
      answer: 'Found 2 res',
      state: 'cut' as const,
    };
    const stored = [
      { role: 'user' as const, content: 'polonium?' },
      { role: 'assistant' as const, content: 'Found 2 results: …' },
    ];
    const [entry] = mergeThread(stored, [cut]);
    expect(entry).toMatchObject({ kind: 'turn', turn: { answer: 'Found 2 results: …', state: 'done' } });
  });
});

describe('answer blocks', () => {
  it('splits a coding agent’s files into named code blocks', () => {
    const answer =
      'Two files.\n\nsrc/add.ts:\n```ts\nexport const add = (a, b) => a + b;\n```\n\nREADME.md:\n```\n# Add\n```';
    expect(answerBlocks(answer)).toEqual([
      { kind: 'text', text: 'Two files.' },
      { kind: 'code', text: 'export const add = (a, b) => a + b;', language: 'ts', file: 'src/add.ts' },
      { kind: 'code', text: '# Add', language: undefined, file: 'README.md' },
    ]);
  });

  it('keeps a run’s JSON output as one block, and a plain answer as paragraphs', () => {
    expect(answerBlocks('```json\n{"a": 1}\n```')).toEqual([
      { kind: 'code', text: '{"a": 1}', language: 'json', file: undefined },
    ]);
    expect(answerBlocks('Found 2 results:\n1. a\n2. b\n\n(1 more)')).toEqual([
      { kind: 'text', text: 'Found 2 results:\n1. a\n2. b' },
      { kind: 'text', text: '(1 more)' },
    ]);
  });
});
