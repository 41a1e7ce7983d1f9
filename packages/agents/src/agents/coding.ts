/**
 * The coding agent: files (path, language, content) and an explanation written by the tenant's LLM under a
 * strict json_schema; 503 `llm_unavailable` without an endpoint. A file path must stay inside the project:
 * an absolute path, a drive letter, a backslash or a `..` segment fails the run with a clear error.
 */
import type { Agents } from '@tessera/api';
import { LlmCallError, LlmUnavailableError, shorten } from '@tessera/llm';
import { z } from 'zod';
import { type Agent, answerCall, systemPrompt } from '../agent';

const CODE_FORMAT = {
  name: 'code_files',
  schema: {
    type: 'object',
    // The explanation first: a streaming caller gets it as it is written, before the files.
    properties: {
      explanation: { type: 'string' },
      files: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            path: { type: 'string' },
            language: { type: 'string' },
            content: { type: 'string' },
          },
          required: ['path', 'language', 'content'],
          additionalProperties: false,
        },
      },
    },
    required: ['explanation', 'files'],
    additionalProperties: false,
  },
};

const CodeAnswer = z.object({
  files: z.array(z.object({ path: z.string(), language: z.string(), content: z.string() })),
  explanation: z.string(),
});

/** Why `path` escapes the project, or undefined when it is a plain relative path. */
export function unsafePath(path: string): string | undefined {
  if (path.trim() === '') return 'it is empty';
  if (path.startsWith('/') || path.startsWith('~')) return 'it is absolute';
  if (/^[A-Za-z]:/.test(path)) return 'it names a drive';
  if (path.includes('\\')) return 'it has a backslash';
  if (path.includes('\0')) return 'it has a NUL character';
  if (path.split('/').some((segment) => segment === '..')) return 'it leaves the project with ..';
  return undefined;
}

export const codingAgent: Agent = {
  name: 'coding_agent',
  async run(deps, run): Promise<Agents.CodingResult> {
    if (!(await deps.llm.resolve(run.tenant.full))) throw new LlmUnavailableError(run.tenant.full);
    await run.phase('generate');
    const raw = await deps.llm.json(run.tenant.full, {
      system: await systemPrompt(
        run,
        'Write the code the request asks for. Answer the files (a relative path inside the project, the language, the whole content) and a short explanation.',
      ),
      user: [`Request: ${run.query}`, ...(run.context.text ? [`Context:\n${run.context.text}`] : [])].join(
        '\n\n',
      ),
      format: CODE_FORMAT,
      ...answerCall(run, 'explanation'),
    });
    const answer = CodeAnswer.safeParse(raw);
    if (!answer.success) {
      throw new LlmCallError(
        `The LLM answered JSON that does not match the code files schema: ${shorten(JSON.stringify(raw))}`,
      );
    }
    for (const file of answer.data.files) {
      const reason = unsafePath(file.path);
      if (reason) {
        throw new LlmCallError(
          `The LLM answered a file path that escapes the project (${reason}): ${shorten(file.path, 200)}`,
        );
      }
    }
    return { ...answer.data, method: 'llm' };
  },
};
