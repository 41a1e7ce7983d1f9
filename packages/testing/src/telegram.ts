/**
 * A fake Telegram Bot API server on loopback, speaking the real HTTP API (`/bot<token>/<method>` with JSON,
 * form or query parameters; `/file/bot<token>/<path>` downloads): getMe, getUpdates (long polling, offsets
 * confirming updates), sendMessage (MarkdownV2 checked as Telegram parses it: every reserved character
 * escaped, at most 4,096 characters), sendChatAction, getFile, setWebhook, deleteWebhook, and webhook
 * delivery with the secret-token header. Tests push users' updates and read what the bot sent; any method
 * can be made to answer 429 with `retry_after`.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentMessage {
  chat_id: string;
  /** The text as the chat shows it (escapes removed). */
  text: string;
  /** The text as sent. */
  raw: string;
  parse_mode?: string;
  at: number;
}

// biome-ignore lint/suspicious/noExplicitAny: Bot API objects are JSON
type Json = any;

interface StoredFile {
  file_id: string;
  file_unique_id: string;
  file_path: string;
  bytes: Buffer;
  /** The size getFile and the message advertise (may lie). */
  advertised: number;
}

const RESERVED = '_*[]()~`>#+-=|{}.!';

/** Parses MarkdownV2 as plain text: every reserved character must be escaped. The shown text, or the error. */
export function parseMarkdownV2(text: string): { text: string } | { error: string } {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      const next = text[i + 1];
      if (next === undefined)
        return { error: "Bad Request: can't parse entities: text ends with a backslash" };
      out += next;
      i++;
    } else if (RESERVED.includes(c)) {
      return {
        error: `Bad Request: can't parse entities: Character '${c}' is reserved and must be escaped with the preceding '\\'`,
      };
    } else out += c;
  }
  return { text: out };
}

export class FakeBotApi {
  readonly token = `${100000 + Math.floor(Math.random() * 900000)}:${randomBytes(16).toString('hex')}`;
  url = '';
  readonly sent: SentMessage[] = [];
  /** Every method call, in order: `{method, params}`. */
  readonly calls: { method: string; params: Json }[] = [];
  webhook: { url: string; secret_token?: string; max_connections?: number } | undefined;
  private readonly updates: Json[] = [];
  private nextUpdateId = 1;
  private nextMessageId = 1;
  private readonly files = new Map<string, StoredFile>();
  private readonly waiters = new Set<() => void>();
  private readonly rateLimits = new Map<string, { retryAfter: number; times: number }>();
  private readonly server = createServer((req, res) => {
    this.handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: false, error_code: 500, description: String(error) }));
    });
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const wake of this.waiters) wake();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The next `times` calls of `method` answer 429 asking to retry after `retryAfter` seconds. */
  rateLimit(method: string, retryAfter: number, times = 1): void {
    this.rateLimits.set(method, { retryAfter, times });
  }

  /** Queues an update (its `update_id` assigned) for getUpdates; answers it. */
  push(update: Json): Json {
    const full = { update_id: this.nextUpdateId++, ...update };
    this.updates.push(full);
    for (const wake of this.waiters) wake();
    return full;
  }

  /** An update of a private message from `userId` (a command gets its bot_command entity). */
  message(userId: number, fields: Json): Json {
    return {
      update_id: this.nextUpdateId++,
      message: {
        message_id: this.nextMessageId++,
        date: Math.floor(Date.now() / 1000),
        from: { id: userId, is_bot: false, first_name: `User${userId}` },
        chat: { id: userId, type: 'private', first_name: `User${userId}` },
        ...fields,
      },
    };
  }

  textUpdate(userId: number, text: string): Json {
    const command = /^\/[A-Za-z0-9_]+(@\w+)?/.exec(text);
    return this.message(userId, {
      text,
      ...(command ? { entities: [{ type: 'bot_command', offset: 0, length: command[0].length }] } : {}),
    });
  }

  /** A user sends text (a command when it starts with `/`). */
  say(userId: number, text: string): Json {
    const update = this.textUpdate(userId, text);
    this.updates.push(update);
    for (const wake of this.waiters) wake();
    return update;
  }

  /** Stores a file the bot can fetch; `advertised` is the size getFile and messages claim (default the truth). */
  addFile(bytes: Buffer, advertised = bytes.length, extension = 'jpg'): StoredFile {
    const id = `file_${randomBytes(8).toString('hex')}`;
    const file = {
      file_id: id,
      file_unique_id: `u${id}`,
      file_path: `photos/${id}.${extension}`,
      bytes,
      advertised,
    };
    this.files.set(id, file);
    return file;
  }

  /**
   * A user sends a photo, with a caption or none. Telegram sends a photo in several sizes, smallest first:
   * `smaller` are the renditions before the photo itself (one size when none).
   */
  sendPhoto(
    userId: number,
    bytes: Buffer,
    options: { caption?: string; advertised?: number; smaller?: Buffer[] } = {},
  ): Json {
    const sizes = [
      ...(options.smaller ?? []).map((rendition) => this.addFile(rendition)),
      this.addFile(bytes, options.advertised),
    ];
    const update = this.message(userId, {
      photo: sizes.map((file, i) => ({
        file_id: file.file_id,
        file_unique_id: file.file_unique_id,
        width: 640 * (i + 1),
        height: 480 * (i + 1),
        file_size: file.advertised,
      })),
      ...(options.caption ? { caption: options.caption } : {}),
    });
    this.updates.push(update);
    for (const wake of this.waiters) wake();
    return update;
  }

  /** A user sends a video, with a caption or none. */
  sendVideo(userId: number, options: { caption?: string } = {}): Json {
    const file = this.addFile(Buffer.from('not fetched'), 1_000_000, 'mp4');
    const update = this.message(userId, {
      video: {
        file_id: file.file_id,
        file_unique_id: file.file_unique_id,
        width: 640,
        height: 480,
        duration: 3,
        mime_type: 'video/mp4',
        file_size: 1_000_000,
      },
      ...(options.caption ? { caption: options.caption } : {}),
    });
    this.updates.push(update);
    for (const wake of this.waiters) wake();
    return update;
  }

  /** Updates not yet confirmed by a getUpdates offset. */
  get pending(): number {
    return this.updates.length;
  }

  /** Messages sent to a chat, in order. */
  to(chatId: number | string): SentMessage[] {
    return this.sent.filter((m) => m.chat_id === String(chatId));
  }

  /** Waits until `count` messages went to the chat (or any chat), or throws after `timeoutMs`. */
  async waitForSent(
    chatId: number | string | undefined,
    count: number,
    timeoutMs = 30_000,
  ): Promise<SentMessage[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const got = chatId === undefined ? this.sent : this.to(chatId);
      if (got.length >= count) return got;
      if (Date.now() > deadline) {
        throw new Error(
          `expected ${count} messages to ${chatId ?? 'any chat'}, got ${got.length}: ${JSON.stringify(got.map((m) => m.text)).slice(0, 2000)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Posts an update to the webhook the bot set, as Telegram does (with its secret token unless told otherwise). */
  async deliver(
    update: Json,
    secret: string | null | undefined = this.webhook?.secret_token,
  ): Promise<Response> {
    if (!this.webhook) throw new Error('no webhook is set');
    return fetch(this.webhook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(secret ? { 'x-telegram-bot-api-secret-token': secret } : {}),
      },
      body: JSON.stringify(update),
    });
  }

  private async params(req: IncomingMessage, url: URL): Promise<Json> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const params: Json = Object.fromEntries(url.searchParams);
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
    if (type === 'application/json' && raw) Object.assign(params, JSON.parse(raw));
    else if (type === 'application/x-www-form-urlencoded')
      Object.assign(params, Object.fromEntries(new URLSearchParams(raw)));
    return params;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const send = (status: number, body: Json) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const file = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (file) {
      const stored = [...this.files.values()].find((f) => f.file_path === decodeURIComponent(file[2]!));
      if (file[1] !== this.token || !stored)
        return send(404, { ok: false, error_code: 404, description: 'Not Found' });
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': stored.bytes.length,
      });
      res.end(stored.bytes);
      return;
    }
    const call = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    if (!call) return send(404, { ok: false, error_code: 404, description: 'Not Found' });
    if (call[1] !== this.token) return send(401, { ok: false, error_code: 401, description: 'Unauthorized' });
    const method = call[2]!;
    const params = await this.params(req, url);
    this.calls.push({ method, params });
    const limit = this.rateLimits.get(method);
    if (limit && limit.times > 0) {
      limit.times--;
      return send(429, {
        ok: false,
        error_code: 429,
        description: `Too Many Requests: retry after ${limit.retryAfter}`,
        parameters: { retry_after: limit.retryAfter },
      });
    }
    const ok = (result: Json) => send(200, { ok: true, result });
    const bad = (description: string) => send(400, { ok: false, error_code: 400, description });
    switch (method) {
      case 'getMe':
        return ok({
          id: Number(this.token.split(':')[0]),
          is_bot: true,
          first_name: 'Tessera',
          username: 'tessera_test_bot',
          can_join_groups: false,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        });
      case 'getUpdates':
        return ok(await this.getUpdates(params, res));
      case 'sendMessage': {
        if (params.chat_id === undefined || params.text === undefined)
          return bad('Bad Request: chat_id and text are required');
        const raw = String(params.text);
        let shown = raw;
        if (params.parse_mode === 'MarkdownV2') {
          const parsed = parseMarkdownV2(raw);
          if ('error' in parsed) return bad(parsed.error);
          shown = parsed.text;
        }
        if (shown.length === 0) return bad('Bad Request: message text is empty');
        if (shown.length > 4096) return bad('Bad Request: message is too long');
        this.sent.push({
          chat_id: String(params.chat_id),
          text: shown,
          raw,
          parse_mode: params.parse_mode,
          at: Date.now(),
        });
        return ok({
          message_id: this.nextMessageId++,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(params.chat_id), type: 'private' },
          text: shown,
        });
      }
      case 'sendChatAction':
        return ok(true);
      case 'getFile': {
        const stored = this.files.get(String(params.file_id));
        if (!stored) return bad('Bad Request: invalid file_id');
        return ok({
          file_id: stored.file_id,
          file_unique_id: stored.file_unique_id,
          file_size: stored.advertised,
          file_path: stored.file_path,
        });
      }
      case 'setWebhook':
        this.webhook = {
          url: String(params.url),
          secret_token: params.secret_token,
          max_connections: params.max_connections === undefined ? undefined : Number(params.max_connections),
        };
        return ok(true);
      case 'deleteWebhook':
        this.webhook = undefined;
        return ok(true);
      default:
        return send(404, { ok: false, error_code: 404, description: `Not Found: method ${method}` });
    }
  }

  /**
   * Holds the poll until an update comes, `timeout` seconds pass, or the client goes. The response's close
   * is the client going: a request's own close comes as soon as its body was read.
   */
  private async getUpdates(params: Json, res: ServerResponse): Promise<Json[]> {
    if (this.webhook) throw new Error("Conflict: can't use getUpdates method while webhook is active");
    const offset = params.offset === undefined ? 0 : Number(params.offset);
    const limit = Math.min(Math.max(Number(params.limit ?? 100), 1), 100);
    const timeout = Number(params.timeout ?? 0);
    // An offset confirms every update before it.
    while (this.updates.length > 0 && this.updates[0].update_id < offset) this.updates.shift();
    const deadline = Date.now() + timeout * 1000;
    while (this.updates.length === 0 && Date.now() < deadline && !res.destroyed) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          res.off('close', wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, Math.max(0, deadline - Date.now()));
        this.waiters.add(wake);
        res.once('close', wake);
      });
    }
    return this.updates.slice(0, limit);
  }
}

export async function startFakeBotApi(): Promise<FakeBotApi> {
  return new FakeBotApi().start();
}
