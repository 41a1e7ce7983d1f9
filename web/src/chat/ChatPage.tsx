/**
 * Chat with any agent of the registry, in threads the runtime stores (`/conversations`). A turn streams as
 * the agent answers (AG-UI events through the web server's chat runtime) and shows what the run found: search
 * hits with their sources, a coding agent's files, an orchestration's plan with each agent's hits. A stream
 * cut mid-way is mended from the stored thread, so an answer is never shown twice.
 */
import type { Agents, Chat } from '@tessera/api';
import { type KeyboardEvent, useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { ApiError, api, chatRunUrl, detailMessage } from '../api';
import { setParams, useLocation } from '../router';
import { reportRuntime, useRecoveries } from '../runtime-status';
import {
  answerBlocks,
  applyFrame,
  type ChatHit,
  type HistoryMessage,
  mergeThread,
  newTurn,
  type PlanStep,
  runInput,
  SseParser,
  type Turn,
} from './run';

const DEFAULT_AGENT = 'search_agent';
const newThreadId = () => `web-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

/** Runs a turn: its events go to `onFrame` as they arrive. Resolves when the stream ends, whole or not. */
async function streamRun(
  agent: string,
  body: unknown,
  signal: AbortSignal,
  onFrame: (frame: { id?: string; data: string }) => void,
): Promise<void> {
  let response: Response;
  try {
    response = await fetch(chatRunUrl(agent), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    reportRuntime(false);
    throw new ApiError(0, 'The web server did not answer. Is it running?');
  }
  if (!response.ok) {
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // plain text
    }
    const message = detailMessage(parsed, response.status);
    if (response.status === 502 && message === 'Runtime unavailable') {
      reportRuntime(false);
      throw new ApiError(502, 'The runtime is unavailable. Send again when it is back.');
    }
    throw new ApiError(response.status, message);
  }
  reportRuntime(true);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const frame of parser.push(value)) onFrame(frame);
    }
  } catch (error) {
    if (signal.aborted) throw error;
    // The stream broke: the caller mends the turn from the stored thread.
  }
}

function Hits({ hits, label }: { hits: ChatHit[]; label: string }) {
  if (hits.length === 0) return null;
  return (
    <ol className="chat-hits" aria-label={label}>
      {hits.slice(0, 10).map((hit, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a run's hits keep their order
        <li key={index} className="chat-hit">
          <span className="chat-hit-source">{hit.source_doc_id ?? hit.document_id}</span>
          {hit.score !== undefined ? <span className="muted"> · score {hit.score.toFixed(3)}</span> : null}
          <p>{hit.text.length > 280 ? `${hit.text.slice(0, 279)}…` : hit.text}</p>
        </li>
      ))}
    </ol>
  );
}

function Plan({ steps }: { steps: PlanStep[] }) {
  if (steps.length === 0) return null;
  return (
    <details className="chat-plan" open>
      <summary>
        Plan: {steps.length} {steps.length === 1 ? 'step' : 'steps'}
      </summary>
      <ol>
        {steps.map((step) => (
          <li key={step.id}>
            <strong>{step.agent}</strong>
            {step.query ? <span className="muted"> — {step.query}</span> : null}
            {step.result === undefined ? <span className="muted"> (running)</span> : null}
            <Hits hits={step.hits} label={`Hits of ${step.agent}`} />
          </li>
        ))}
      </ol>
    </details>
  );
}

export function Answer({ text }: { text: string }) {
  const blocks = useMemo(() => answerBlocks(text), [text]);
  return (
    <div className="chat-answer">
      {blocks.map((block, index) =>
        block.kind === 'code' ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: blocks of one answer keep their order
          <figure key={index} className="chat-code">
            {block.file ? <figcaption>{block.file}</figcaption> : null}
            <pre>
              <code data-language={block.language}>{block.text}</code>
            </pre>
          </figure>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: blocks of one answer keep their order
          <p key={index}>{block.text}</p>
        ),
      )}
    </div>
  );
}

function TurnView({ turn, onRetry }: { turn: Turn; onRetry: (question: string) => void }) {
  return (
    <>
      <li className="chat-message chat-user">
        <span className="visually-hidden">You: </span>
        <p>{turn.question}</p>
      </li>
      <li className="chat-message chat-assistant" aria-busy={turn.state === 'running'}>
        <p className="chat-agent">{turn.agent}</p>
        <Plan steps={turn.steps} />
        {turn.answer ? <Answer text={turn.answer} /> : null}
        {turn.state === 'running' && !turn.answer ? <p className="muted">Working…</p> : null}
        {turn.state === 'error' ? (
          <p className="error" role="alert">
            {turn.error}
          </p>
        ) : null}
        {turn.state === 'cut' ? (
          <p className="error" role="alert">
            The answer was cut off.{' '}
            <button type="button" className="link-button" onClick={() => onRetry(turn.question)}>
              Ask again
            </button>
          </p>
        ) : null}
        {turn.sources.length > 0 ? (
          <p className="chat-sources">
            Sources:{' '}
            {turn.sources.map((source, index) => (
              <span key={source}>
                {index > 0 ? ', ' : ''}
                <cite>{source}</cite>
              </span>
            ))}
          </p>
        ) : null}
        <Hits hits={turn.hits} label="Hits" />
      </li>
    </>
  );
}

export default function ChatPage({ tenantId }: { tenantId: string }) {
  const id = useId();
  const location = useLocation();
  const recoveries = useRecoveries();
  const threadId = location.searchParams.get('thread') ?? '';
  const [agents, setAgents] = useState<Agents.AgentList['agents'] | undefined>();
  const agentParam = location.searchParams.get('agent') ?? '';
  const [threads, setThreads] = useState<Chat.ConversationThread[] | undefined>();
  const [threadsError, setThreadsError] = useState<string | undefined>();
  const [stored, setStored] = useState<Chat.ConversationMessage[]>([]);
  const [turns, setTurns] = useState<Record<string, Turn[]>>({});
  const [draft, setDraft] = useState('');
  const running = useRef<AbortController | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const logRef = useRef<HTMLOListElement>(null);

  const runnable = useMemo(() => (agents ?? []).filter((a) => a.enabled && a.available), [agents]);
  const agent =
    runnable.find((a) => a.name === agentParam)?.name ??
    runnable.find((a) => a.name === DEFAULT_AGENT)?.name ??
    runnable[0]?.name ??
    DEFAULT_AGENT;

  useEffect(() => {
    void recoveries;
    api.agents().then(
      (answer) => setAgents(answer.agents),
      () => {},
    );
  }, [recoveries]);

  const loadThreads = useCallback(() => {
    api.conversations(tenantId).then(
      (answer) => {
        setThreads(answer.threads);
        setThreadsError(undefined);
      },
      (error: Error) => setThreadsError(error.message),
    );
  }, [tenantId]);

  useEffect(() => {
    void recoveries;
    loadThreads();
  }, [loadThreads, recoveries]);

  const loadThread = useCallback(
    (contextId: string) =>
      api.conversation(tenantId, contextId).then(
        (answer) => setStored(answer.messages),
        (error: Error) => {
          // A thread of this visit that has no stored turn yet is empty, not missing.
          if (error instanceof ApiError && error.status === 404) setStored([]);
          else setThreadsError(error.message);
        },
      ),
    [tenantId],
  );

  useEffect(() => {
    void recoveries;
    setStored([]);
    if (threadId) void loadThread(threadId);
  }, [threadId, loadThread, recoveries]);

  useEffect(() => () => running.current?.abort(), []);

  const entries = useMemo(() => mergeThread(stored, turns[threadId] ?? []), [stored, turns, threadId]);

  useEffect(() => {
    void entries;
    const log = logRef.current;
    if (log) log.scrollTop = log.scrollHeight;
  }, [entries]);

  const send = async (question: string) => {
    const text = question.trim();
    if (!text || busy) return;
    const thread = threadId || newThreadId();
    if (!threadId) setParams({ thread });
    const history: HistoryMessage[] = entries.flatMap((entry): HistoryMessage[] =>
      entry.kind === 'stored'
        ? [{ role: entry.message.role, content: entry.message.content }]
        : entry.turn.answer
          ? [
              { role: 'user', content: entry.turn.question },
              { role: 'assistant', content: entry.turn.answer },
            ]
          : [],
    );
    const runId = `run-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const update = (change: (turn: Turn) => Turn) =>
      setTurns((all) => ({
        ...all,
        [thread]: (all[thread] ?? []).map((turn) => (turn.id === runId ? change(turn) : turn)),
      }));
    setTurns((all) => ({ ...all, [thread]: [...(all[thread] ?? []), newTurn(runId, agent, text)] }));
    setDraft('');
    const controller = new AbortController();
    running.current = controller;
    setBusy(true);
    try {
      await streamRun(agent, runInput(tenantId, thread, runId, history, text), controller.signal, (frame) =>
        update((turn) => applyFrame(turn, frame)),
      );
      // A stream that ended before the run did: the stored thread has the turn if the run got that far.
      update((turn) => (turn.state === 'running' ? { ...turn, state: 'cut' } : turn));
      // The composer is free again while the stored thread and the thread list refresh.
      void loadThread(thread).then(loadThreads);
    } catch (error) {
      if (controller.signal.aborted) update((turn) => ({ ...turn, state: 'error', error: 'Stopped.' }));
      else update((turn) => ({ ...turn, state: 'error', error: (error as Error).message }));
    } finally {
      running.current = undefined;
      setBusy(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void send(draft);
    }
  };

  return (
    <section aria-labelledby={`${id}-title`} className="page chat-page">
      <h1 id={`${id}-title`} tabIndex={-1}>
        Chat
      </h1>
      <div className="chat-layout">
        <nav className="chat-threads card" aria-label="Threads">
          <div className="chat-threads-head">
            <h2>Threads</h2>
            <button type="button" onClick={() => setParams({ thread: newThreadId() })} disabled={busy}>
              New chat
            </button>
          </div>
          {threadsError ? (
            <p className="error" role="alert">
              Threads could not be loaded: {threadsError}
            </p>
          ) : null}
          {threads && threads.length === 0 ? <p className="muted">No threads yet.</p> : null}
          <ul>
            {(threads ?? []).map((thread) => (
              <li key={thread.context_id}>
                <button
                  type="button"
                  className="chat-thread"
                  aria-current={thread.context_id === threadId ? 'true' : undefined}
                  onClick={() => setParams({ thread: thread.context_id })}
                  disabled={busy}
                >
                  <span className="chat-thread-title">{thread.title || thread.context_id}</span>
                  <span className="muted">
                    {thread.message_count} messages · {new Date(thread.updated_at).toLocaleString()}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </nav>
        <div className="chat-main card">
          <ol className="chat-log" ref={logRef} aria-label="Conversation" aria-live="polite">
            {entries.length === 0 ? (
              <li className="chat-empty muted">
                Ask {agent} anything about this tenant’s content. Answers stream in with their sources.
              </li>
            ) : null}
            {entries.map((entry) =>
              entry.kind === 'stored' ? (
                <li
                  key={`stored-${entry.index}`}
                  className={`chat-message chat-${entry.message.role === 'user' ? 'user' : 'assistant'}`}
                >
                  {entry.message.role === 'assistant' ? (
                    <>
                      <p className="chat-agent">{entry.message.agent ?? 'assistant'}</p>
                      <Answer text={entry.message.content} />
                    </>
                  ) : (
                    <>
                      <span className="visually-hidden">You: </span>
                      <p>{entry.message.content}</p>
                    </>
                  )}
                </li>
              ) : (
                <TurnView key={entry.turn.id} turn={entry.turn} onRetry={(q) => void send(q)} />
              ),
            )}
          </ol>
          <form
            className="chat-composer"
            onSubmit={(event) => {
              event.preventDefault();
              void send(draft);
            }}
          >
            <div className="field-row">
              <label htmlFor={`${id}-agent`}>Agent</label>
              <select
                id={`${id}-agent`}
                value={agent}
                onChange={(event) => setParams({ agent: event.target.value })}
                disabled={!agents || busy}
              >
                {!agents ? <option value={agent}>{agent}</option> : null}
                {runnable.map((a) => (
                  <option key={a.name} value={a.name}>
                    {a.name}
                  </option>
                ))}
              </select>
            </div>
            <div className="field-row grow">
              <label htmlFor={`${id}-message`}>Message</label>
              <textarea
                id={`${id}-message`}
                value={draft}
                onChange={(event) => setDraft(event.target.value)}
                onKeyDown={onKeyDown}
                rows={2}
                maxLength={20_000}
                placeholder="Ask a question (Enter sends, Shift+Enter adds a line)"
              />
            </div>
            {busy ? (
              <button type="button" onClick={() => running.current?.abort()}>
                Stop
              </button>
            ) : (
              <button type="submit" className="primary" disabled={!draft.trim()}>
                Send
              </button>
            )}
          </form>
        </div>
      </div>
    </section>
  );
}
