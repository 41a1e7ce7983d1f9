/**
 * The bot: one handler per command of document 3's table, plain text to the gateway agent, photos and videos
 * to the search agents, registration by invite token, the sender's tenant resolved (cached 60 s when found),
 * and every failure told as one of the gateway's replies. History is the runtime's: each dispatch names the
 * chat as its `context_id`.
 */
import { sequentialize } from '@grammyjs/runner';
import { log, MAX_REQUEST_BODY_BYTES } from '@tessera/core';
import { Bot, type Context, type NextFunction } from 'grammy';
import type { UserFromGetMe } from 'grammy/types';
import { resultText, splitEscaped } from './format';
import { REPLIES } from './replies';
import { honourRetryAfter } from './retry';
import type { Crud, Dispatched, RuntimeClient } from './runtime-client';

export const PLATFORM = 'telegram';
/** Photo download cap, checked against the advertised size and the bytes received (document 3, "Limits"). */
export const PHOTO_CAP_BYTES = 5 * 1024 * 1024;
/** Whether a photo of `bytes` goes base64 in a dispatch, beside 64 KiB of the rest, within a request's limit. */
const fitsDispatch = (bytes: number) => Math.ceil(bytes / 3) * 4 + 64 * 1024 <= MAX_REQUEST_BODY_BYTES;
/** How long a user's tenant, once found, is taken without asking the runtime again. */
export const RESOLVE_TTL_MS = 60_000;
/** Update ids remembered against repeated deliveries (Telegram's ids rise, so the oldest go first). */
const RECENT_UPDATES = 10_000;

export interface BotOptions {
  token: string;
  apiRoot: string;
  runtime: RuntimeClient;
  /** Known bot identity: no getMe at start. */
  botInfo?: UserFromGetMe;
  now?: () => number;
}

type TenantContext = Context & { tenant?: string };

/** Sends a text as escaped MarkdownV2 messages of at most Telegram's limit each. */
export async function sendText(api: Bot['api'], chatId: number | string, text: string): Promise<void> {
  for (const piece of splitEscaped(text)) await api.sendMessage(chatId, piece, { parse_mode: 'MarkdownV2' });
}

const say = (ctx: Context, text: string) => sendText(ctx.api, ctx.chat!.id, text);

/** A bot command as Telegram writes one: a slash, up to 32 letters, digits or underscores, maybe `@bot`. */
const COMMAND = /^\/([A-Za-z0-9_]{1,32})(?:@[A-Za-z0-9_]+)?(?:\s|$)/;

/** The reply of a runtime that did not give what was asked. */
function failureReply(answer: Exclude<Dispatched | Crud, { status: 'ok' }> & { code?: string }): string {
  if (answer.status === 'error') {
    // An agent that needs an LLM the tenant has none of: the user should know why, not retry.
    if (answer.code === 'llm_unavailable') return answer.message;
    return answer.status_code !== undefined && answer.status_code < 500
      ? `Could not do that: ${answer.message}`
      : REPLIES.tryAgain;
  }
  return answer.status === 'warming' ? REPLIES.warming : REPLIES.unavailable;
}

export function createBot(options: BotOptions): Bot<TenantContext> {
  const { runtime } = options;
  const now = options.now ?? Date.now;
  const bot = new Bot<TenantContext>(options.token, {
    client: { apiRoot: options.apiRoot },
    ...(options.botInfo ? { botInfo: options.botInfo } : {}),
  });
  bot.api.config.use(honourRetryAfter());
  const resolved = new Map<string, { tenant: string; until: number }>();

  // An update Telegram delivers again (a webhook answer it missed) is not handled twice.
  const seen = new Set<number>();
  bot.use(async (ctx, next) => {
    const id = ctx.update.update_id;
    if (seen.has(id)) return;
    seen.add(id);
    if (seen.size > RECENT_UPDATES) seen.delete(seen.values().next().value as number);
    await next();
  });
  // One chat's updates in order, other chats' at the same time.
  bot.use(sequentialize((ctx: Context) => ctx.chat?.id.toString()));

  bot.command('start', async (ctx) => {
    const token = ctx.match.trim();
    if (!ctx.from) return;
    if (!token) return say(ctx, REPLIES.startWithoutToken);
    const answer = await runtime.register(PLATFORM, String(ctx.from.id), token);
    if (answer.status === 'registered') {
      resolved.set(String(ctx.from.id), { tenant: answer.tenant_id, until: now() + RESOLVE_TTL_MS });
      return say(ctx, REPLIES.registered(answer.tenant_id));
    }
    if (answer.status === 'invalid_token') return say(ctx, REPLIES.invalidToken);
    if (answer.status === 'unavailable') return say(ctx, REPLIES.registrationUnavailable);
    if (answer.status === 'warming') return say(ctx, REPLIES.warming);
    return say(ctx, answer.status === 'unreachable' ? REPLIES.unavailable : REPLIES.tryAgain);
  });

  bot.command('help', (ctx) => say(ctx, REPLIES.help));

  // Everything else needs the sender's tenant.
  bot.use(async (ctx: TenantContext, next: NextFunction) => {
    if (!ctx.from || !ctx.chat) return;
    const user = String(ctx.from.id);
    const cached = resolved.get(user);
    if (cached && cached.until > now()) {
      ctx.tenant = cached.tenant;
      return next();
    }
    const answer = await runtime.resolve(PLATFORM, user);
    if ('status' in answer)
      return say(ctx, answer.status === 'warming' ? REPLIES.warming : REPLIES.unavailable);
    if (answer.tenant === null) return say(ctx, REPLIES.register);
    resolved.set(user, { tenant: answer.tenant, until: now() + RESOLVE_TTL_MS });
    ctx.tenant = answer.tenant;
    return next();
  });

  /** Runs an agent for the chat and replies its answer (the runtime keeps the chat's history). */
  const ask = async (
    ctx: TenantContext,
    agent: string,
    query: string,
    context: Record<string, unknown> = {},
  ) => {
    const conversation = { ...context, context_id: String(ctx.chat!.id) };
    let answer = await runtime.dispatch(agent, query, ctx.tenant!, conversation);
    if (answer.status === 'error' && answer.status_code === 503 && answer.code === 'conversations') {
      // The history store is down: the turn goes without history rather than not at all.
      log.warn('conversation store unavailable; dispatching without history', { agent });
      answer = await runtime.dispatch(agent, query, ctx.tenant!, context);
    }
    if (answer.status !== 'ok') return say(ctx, failureReply(answer));
    return say(ctx, resultText(answer.result));
  };

  const agentCommand = (command: string, agent: string, args: string) =>
    bot.command(command, async (ctx) => {
      const query = ctx.match.trim();
      if (!query) return say(ctx, REPLIES.usage(command, args));
      return ask(ctx, agent, query);
    });
  agentCommand('search', 'search_agent', '<query>');
  agentCommand('summarize', 'summarizer_agent', '<query>');
  agentCommand('report', 'detailed_report_agent', '<query>');
  agentCommand('research', 'deep_research_agent', '<question>');
  agentCommand('code', 'coding_agent', '<request>');

  /** An admin call for the tenant, its answer told by `tell`. */
  const admin = async (
    ctx: TenantContext,
    call: Promise<Crud>,
    tell: (body: Record<string, unknown>) => string,
  ) => {
    const answer = await call;
    if (answer.status !== 'ok') return say(ctx, failureReply(answer));
    return say(ctx, tell(answer.body as Record<string, unknown>));
  };
  const q = encodeURIComponent;

  bot.command('wiki', async (ctx) => {
    const [sub = '', ...rest] = ctx.match.trim().split(/\s+/);
    const arg = rest.join(' ');
    const tenant = ctx.tenant!;
    switch (sub.toLowerCase()) {
      case 'save':
        return say(ctx, REPLIES.wikiSaved);
      case 'search':
        if (!arg) return say(ctx, REPLIES.usage('wiki', 'search <query>'));
        return admin(
          ctx,
          runtime.crud('POST', '/wiki/search', { tenant_id: tenant, query: arg, top_k: 5 }),
          (b) => {
            const results = (b.results as { slug: string; title: string; snippet: string }[]) ?? [];
            if (results.length === 0) return 'No wiki pages match.';
            return results.map((r) => `${r.title} (${r.slug})\n${r.snippet}`).join('\n\n');
          },
        );
      case 'topic':
        if (!arg) return say(ctx, REPLIES.usage('wiki', 'topic <slug>'));
        return admin(
          ctx,
          runtime.crud('GET', `/wiki/topic/${q(arg)}?tenant_id=${q(tenant)}`),
          (b) => `${String(b.title)}\n\n${String(b.content)}`,
        );
      case 'index':
        return admin(ctx, runtime.crud('GET', `/wiki/index?tenant_id=${q(tenant)}`), (b) => {
          const pages = (b.pages as { slug: string; title: string; kind: string }[]) ?? [];
          if (pages.length === 0) return 'The wiki has no pages yet.';
          return [`${pages.length} pages:`, ...pages.map((p) => `${p.kind}: ${p.title} (${p.slug})`)].join(
            '\n',
          );
        });
      case 'lint':
        return admin(ctx, runtime.crud('GET', `/wiki/lint?tenant_id=${q(tenant)}`), (b) =>
          ['orphan', 'stale', 'empty', 'malformed']
            .map((kind) => `${kind}: ${((b[kind] as string[]) ?? []).join(', ') || 'none'}`)
            .join('\n'),
        );
      default:
        return say(ctx, REPLIES.usage('wiki', 'save | search <query> | topic <slug> | index | lint'));
    }
  });

  bot.command('instructions', async (ctx) => {
    const text = ctx.match.trim();
    const path = `/admin/tenant/${q(ctx.tenant!)}/instructions`;
    const tell = (b: Record<string, unknown>) =>
      b.version === 0
        ? 'No instructions are set.'
        : `Instructions (version ${String(b.version)}):\n${String(b.text)}`;
    return admin(ctx, text ? runtime.crud('PUT', path, { text }) : runtime.crud('GET', path), tell);
  });

  bot.command('memories', (ctx) =>
    admin(ctx, runtime.crud('GET', `/admin/tenant/${q(ctx.tenant!)}/memories?limit=10`), (b) => {
      const memories = (b.memories as { agent_name: string; content: string }[]) ?? [];
      if (memories.length === 0) return 'No memories yet.';
      return [
        `${String(b.total_count)} memories; the latest:`,
        ...memories.map((m) => `${m.agent_name}: ${m.content}`),
      ].join('\n');
    }),
  );

  bot.command('jobs', (ctx) =>
    admin(ctx, runtime.crud('GET', `/admin/tenant/${q(ctx.tenant!)}/jobs`), (b) => {
      const jobs = (b.jobs as { name: string; schedule: string; next_run: string; job_id: string }[]) ?? [];
      if (jobs.length === 0) return 'No scheduled jobs.';
      return jobs.map((j) => `${j.name} (${j.schedule}), next ${j.next_run} [${j.job_id}]`).join('\n');
    }),
  );

  bot.on('message:photo', async (ctx) => {
    // Telegram's renditions of the photo, smallest first; the cap applies to the photo as sent.
    const sizes = ctx.message.photo;
    if ((sizes.at(-1)!.file_size ?? 0) > PHOTO_CAP_BYTES) return say(ctx, REPLIES.photoTooLarge);
    // Base64 in a JSON dispatch: a function's request (6 MB) carries photos up to about 4.4 MB, so a larger
    // one under the cap goes as the largest rendition that fits.
    for (const photo of [...sizes].reverse()) {
      if (photo.file_size !== undefined && !fitsDispatch(photo.file_size)) continue;
      const file = await ctx.api.getFile(photo.file_id);
      if ((file.file_size ?? 0) > PHOTO_CAP_BYTES || !file.file_path) return say(ctx, REPLIES.photoTooLarge);
      const bytes = await download(
        `${options.apiRoot}/file/bot${options.token}/${file.file_path}`,
        PHOTO_CAP_BYTES,
      );
      if (bytes === 'too large') return say(ctx, REPLIES.photoTooLarge);
      if (!fitsDispatch(bytes.length)) continue;
      return ask(
        ctx,
        'image_search_agent',
        ctx.message.caption?.trim() || 'Find images similar to this photo',
        {
          media_content_b64: bytes.toString('base64'),
          media_mime: 'image/jpeg',
          media_type: 'image',
          media_file_id: photo.file_id,
        },
      );
    }
    return say(ctx, REPLIES.photoTooLargeToSearch);
  });

  bot.on('message:video', (ctx) =>
    ask(ctx, 'search_agent', ctx.message.caption?.trim() || 'Find videos similar to this video', {
      media_type: 'video',
      media_mime: ctx.message.video.mime_type ?? 'video/mp4',
      media_file_id: ctx.message.video.file_id,
    }),
  );

  bot.on('message:text', (ctx) => {
    // A command no handler took; text that only starts with a slash (`/etc/hosts`) is a question like any other.
    const command = COMMAND.exec(ctx.message.text)?.[1];
    if (command !== undefined) return say(ctx, REPLIES.unknownCommand(command));
    return ask(ctx, 'gateway_agent', ctx.message.text);
  });

  bot.catch(async (error) => {
    log.error('gateway handler failed', { error: error.error as Error, update: error.ctx.update.update_id });
    const chat = error.ctx.chat?.id;
    if (chat !== undefined) await sendText(error.ctx.api, chat, REPLIES.tryAgain).catch(() => undefined);
  });
  return bot;
}

/** Downloads a file, stopping once it passes `cap` bytes (whatever its size was said to be). */
async function download(url: string, cap: number): Promise<Buffer | 'too large'> {
  const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  if (!response.ok || !response.body) throw new Error(`file download answered ${response.status}`);
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > cap) {
    await response.body.cancel();
    return 'too large';
  }
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of response.body) {
    received += chunk.byteLength;
    if (received > cap) {
      // Reading stops here: the rest is never taken.
      return 'too large';
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}
