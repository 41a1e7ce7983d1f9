/**
 * An OpenAI-compatible chat completions server on loopback (the claim extractor's wire contract): it answers
 * each request through `answer`, with the request's user message, and refuses requests without a strict
 * `json_schema` response format as a structured-output server does.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeLlm {
  url: string;
  prompts: string[];
  close(): Promise<void>;
}

export async function startFakeLlm(
  answer: (prompt: string) => { status: 200; content: unknown } | { status: number; error: string },
): Promise<FakeLlm> {
  const prompts: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(json));
      };
      if (req.url !== '/v1/chat/completions') return send(404, { error: { message: 'not found' } });
      if (body.response_format?.type !== 'json_schema' || body.response_format.json_schema?.strict !== true) {
        return send(400, { error: { message: 'response_format must be a strict json_schema' } });
      }
      const prompt = body.messages.map((m: { content: string }) => m.content).join('\n');
      prompts.push(prompt);
      const reply = answer(prompt);
      if (reply.status !== 200)
        return send(reply.status, { error: { message: (reply as { error: string }).error } });
      send(200, {
        id: `chatcmpl-${prompts.length}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [
          {
            index: 0,
            finish_reason: 'stop',
            message: { role: 'assistant', content: JSON.stringify((reply as { content: unknown }).content) },
          },
        ],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    prompts,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
