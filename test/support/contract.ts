/**
 * Holds every answer the integration tests get to the route contracts of @tessera/api: its status must be
 * one the contract lists, and its body must match that answer's schema exactly (no field the schema lacks).
 * So the whole suite checks that the OpenAPI document says what the routes answer.
 */
import { contracts } from '@tessera/api';
import { errorAnswers } from '@tessera/api/openapi';

const compiled = contracts.map((contract) => ({
  contract,
  pattern: new RegExp(`^${contract.route.replace(/\./g, '\\.').replace(/\{\w+\}/g, '[^/]+')}/?$`),
}));

/** JSON with object keys sorted, so two values compare by content. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/** Throws when an answer of `method pathAndQuery` is not one its contract describes. */
export function checkAnswer(method: string, pathAndQuery: string, status: number, body: unknown): void {
  const pathname = new URL(pathAndQuery, 'http://localhost').pathname;
  const match = compiled.find((c) => c.contract.method === method && c.pattern.test(pathname));
  // No route: the fallback's 404 or 405.
  if (!match) return;
  const { contract } = match;
  const where = `${method} ${pathname} answered ${status}`;
  const answer = { ...contract.responses, ...errorAnswers(contract) }[status];
  if (!answer) throw new Error(`${where}, a status its contract does not list: ${canonical(body)}`);
  // A stream's frames are not one JSON body; the stream tests read them.
  if (contract.stream && status === 200) return;
  const parsed = answer.schema.safeParse(body);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`${where} with a body its contract does not describe (${issues}): ${canonical(body)}`);
  }
  if (canonical(parsed.data) !== canonical(body)) {
    throw new Error(
      `${where} with fields its contract does not describe: ${canonical(body)} read as ${canonical(parsed.data)}`,
    );
  }
}
