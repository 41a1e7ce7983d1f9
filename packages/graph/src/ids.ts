/** Deterministic node and edge identifiers. */
import { createHash } from 'node:crypto';
import { Graph } from '@tessera/api';

/** `node_id` of a name (part of the API: clients compute it too). May be empty. */
export const normalizeNodeId = Graph.normalizeNodeId;

/** A float as Python's `repr` writes it: `0.0`, `14.0`, `14.5`, `1e-05`, `1e+16`. */
export function pythonFloat(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (value === 0) return Object.is(value, -0) ? '-0.0' : '0.0';
  // Shortest round-trip digits and decimal exponent, as both languages compute them.
  const [mantissa, exp] = value.toExponential().split('e') as [string, string];
  const exponent = Number(exp);
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  let text: string;
  // Python writes fixed notation for decimal exponents from -4 to 15, scientific otherwise.
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) text = `0.${'0'.repeat(-exponent - 1)}${digits}`;
    else if (digits.length <= exponent + 1) text = `${digits}${'0'.repeat(exponent + 1 - digits.length)}.0`;
    else text = `${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
  } else {
    const sign = exponent < 0 ? '-' : '+';
    text = `${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return negative ? `-${text}` : text;
}

/** First 16 hex characters of SHA-1 over `source|relation|target|segment_id|ts_start|ts_end`. */
export function edgeId(
  source: string,
  relation: string,
  target: string,
  segmentId: string,
  tsStart: number,
  tsEnd: number,
): string {
  const key = [source, relation, target, segmentId, pythonFloat(tsStart), pythonFloat(tsEnd)].join('|');
  return createHash('sha1').update(key).digest('hex').slice(0, 16);
}
