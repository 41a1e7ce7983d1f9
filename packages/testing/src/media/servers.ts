/**
 * Loopback servers speaking the inference contracts: an OpenAI-compatible `/v1/audio/transcriptions` taking
 * multipart uploads (parsed with the platform's own FormData), an OpenAI-compatible vision chat endpoint.
 */
import type { Reply, SeenRequest } from '../index';

export interface TranscriptionRequest {
  model: string;
  response_format: string;
  temperature?: string;
  language?: string;
  file: { name: string; type: string; bytes: Buffer };
  /** Seconds of 16-bit mono audio in the WAV. */
  seconds: number;
}

/** Parses a multipart transcription request the way an OpenAI-compatible server does. */
export async function transcriptionRequest(seen: SeenRequest): Promise<TranscriptionRequest> {
  const form = await new Response(seen.raw, {
    headers: { 'content-type': String(seen.headers['content-type']) },
  }).formData();
  const file = form.get('file');
  if (!(file instanceof Blob)) throw new Error('no file part');
  const bytes = Buffer.from(await file.arrayBuffer());
  if (bytes.toString('ascii', 0, 4) !== 'RIFF' || bytes.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('file part is not a WAV');
  }
  const rate = bytes.readUInt32LE(24);
  const field = (name: string) => {
    const value = form.get(name);
    return typeof value === 'string' ? value : undefined;
  };
  return {
    model: field('model') ?? '',
    response_format: field('response_format') ?? 'json',
    temperature: field('temperature'),
    language: field('language'),
    file: { name: (file as File).name, type: file.type, bytes },
    seconds: bytes.readUInt32LE(40) / 2 / rate,
  };
}

export type TranscriptionReply =
  | { text: string; segments?: { start: number; end: number; text: string }[] }
  | Reply;

/**
 * An OpenAI-compatible transcription server. `answer` gets each parsed request; a plain `{text, segments}`
 * is wrapped as the format asks (`verbose_json` adds task, language, duration; `json` keeps only text).
 */
export function transcriptionServer(
  answer: (request: TranscriptionRequest, count: number) => TranscriptionReply | Promise<TranscriptionReply>,
): (seen: SeenRequest, count: number) => Promise<Reply> {
  return async (seen, count) => {
    if (seen.method !== 'POST' || seen.url !== '/v1/audio/transcriptions') {
      return { status: 404, json: { error: { message: `no route ${seen.method} ${seen.url}` } } };
    }
    const request = await transcriptionRequest(seen);
    const reply = await answer(request, count);
    if (reply === 'hang' || 'status' in reply) return reply;
    if (request.response_format === 'json') return { status: 200, json: { text: reply.text } };
    return {
      status: 200,
      json: {
        task: 'transcribe',
        language: 'english',
        duration: request.seconds,
        text: reply.text,
        segments: (reply.segments ?? []).map((s, id) => ({
          id,
          seek: 0,
          start: s.start,
          end: s.end,
          text: s.text,
          tokens: [],
          temperature: 0,
          avg_logprob: -0.2,
          compression_ratio: 1.2,
          no_speech_prob: 0.01,
        })),
      },
    };
  };
}

/** An OpenAI-compatible chat endpoint answering vision requests with `caption(imageDataUrl, prompt)`. */
export function visionChat(
  caption: (image: string, prompt: string, count: number) => string | Reply,
): (seen: SeenRequest, count: number) => Reply {
  return (seen, count) => {
    if (seen.method !== 'POST' || seen.url !== '/v1/chat/completions') {
      return { status: 404, json: { error: { message: `no route ${seen.method} ${seen.url}` } } };
    }
    const body = seen.body as {
      model: string;
      messages: { role: string; content: { type: string; text?: string; image_url?: { url: string } }[] }[];
    };
    const parts = body.messages[0]?.content ?? [];
    const image = parts.find((p) => p.type === 'image_url')?.image_url?.url;
    const prompt = parts.find((p) => p.type === 'text')?.text ?? '';
    if (!image) return { status: 400, json: { error: { message: 'no image_url part' } } };
    const answer = caption(image, prompt, count);
    if (typeof answer !== 'string') return answer;
    return {
      status: 200,
      json: {
        id: `chatcmpl-${count}`,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: body.model,
        choices: [
          { index: 0, message: { role: 'assistant', content: answer, refusal: null }, finish_reason: 'stop' },
        ],
        usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
      },
    };
  };
}
