/** Structured JSON-lines logger on stderr (CloudWatch parses each line as one event). */
import { coreEnv } from './env';

type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const threshold = order[coreEnv.logLevel];

function write(level: Level, message: string, fields?: Record<string, unknown>): void {
  if (order[level] < threshold) return;
  const line = { level, time: new Date().toISOString(), message, ...fields };
  process.stderr.write(`${JSON.stringify(line, errorReplacer)}\n`);
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

export const log = {
  debug: (message: string, fields?: Record<string, unknown>) => write('debug', message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write('info', message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write('warn', message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write('error', message, fields),
};
