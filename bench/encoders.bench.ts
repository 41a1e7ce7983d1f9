/**
 * Embedded multi-vector encoder figures: cold load in a fresh process (import, word vectors read, first
 * text encoded) and encoding throughput on one core, for prose (paragraphs of the Markdown files in
 * node_modules, up to 2,000 characters) and code (10-line chunks of its JavaScript), token cache cold then
 * warm, per second of the process's CPU time and of wall time.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { createEmbeddedEncoder, EmbeddedEncoderName, tokenize } from '@tessera/encoders';

const root = path.resolve(import.meta.dirname, '..');
const CHUNKS = Number(process.env.BENCH_ENCODER_CHUNKS ?? 20_000);
const COLD_RUNS = 5;

function* files(dir: string, pattern: RegExp): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(full);
    } catch {
      continue;
    }
    if (stat.isDirectory()) {
      if (name !== '.cache' && name !== '.bin') yield* files(full, pattern);
    } else if (pattern.test(name) && stat.size < 400_000 && !name.includes('.min.')) yield full;
  }
}

/** Paragraphs of at least 200 characters, merged up to 2,000 as the paragraph chunker does. */
function proseChunks(limit: number): string[] {
  const out: string[] = [];
  for (const file of files(path.join(root, 'node_modules'), /\.md$/i)) {
    let current = '';
    for (const paragraph of readFileSync(file, 'utf8').split(/\n\s*\n/)) {
      if (current.length + paragraph.length > 2000 && current.length >= 200) {
        out.push(current);
        current = '';
      }
      current = current ? `${current}\n\n${paragraph}` : paragraph;
    }
    if (current.length >= 200) out.push(current);
    if (out.length >= limit) break;
  }
  return out.slice(0, limit);
}

function codeChunks(limit: number): string[] {
  const out: string[] = [];
  for (const file of files(path.join(root, 'node_modules'), /\.(js|mjs|cjs)$/)) {
    const lines = readFileSync(file, 'utf8').split('\n');
    if (lines.some((line) => line.length > 500)) continue;
    for (let i = 0; i < lines.length && out.length < limit; i += 10) {
      const text = lines
        .slice(i, i + 10)
        .join('\n')
        .trim();
      if (text.length > 80) out.push(text);
    }
    if (out.length >= limit) break;
  }
  return out;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** A fresh Node process: the encoder package imported, its vectors loaded, one document encoded. */
async function coldLoad(
  name: EmbeddedEncoderName,
): Promise<{ importMs: number; loadMs: number; firstMs: number }> {
  const script = `
    const t0 = performance.now();
    const { createEmbeddedEncoder } = await import('@tessera/encoders');
    const t1 = performance.now();
    const encoder = createEmbeddedEncoder(${JSON.stringify(name)});
    if ('load' in encoder) encoder.load();
    const t2 = performance.now();
    await encoder.encode(['Pressure distribution over a swept wing at supersonic speed.'], 'document');
    const t3 = performance.now();
    console.log(JSON.stringify({ importMs: t1 - t0, loadMs: t2 - t1, firstMs: t3 - t2 }));`;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: root },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    importMs: number;
    loadMs: number;
    firstMs: number;
  };
}

export async function encodersBench(): Promise<void> {
  const corpora = { prose: proseChunks(CHUNKS), code: codeChunks(CHUNKS) };
  console.log('\nEmbedded multi-vector encoders (one core; chunks from node_modules)');
  for (const [kind, chunks] of Object.entries(corpora)) {
    const words = chunks.reduce((sum, chunk) => sum + tokenize(chunk).length, 0) / chunks.length;
    console.log(
      `  ${kind}: ${chunks.length} chunks, ${Math.round(chunks.reduce((s, c) => s + c.length, 0) / chunks.length)} characters and ${words.toFixed(0)} tokens on average`,
    );
  }
  console.log(
    `\n${'encoder'.padEnd(28)} ${'import ms'.padStart(10)} ${'load ms'.padStart(8)} ${'1st ms'.padStart(7)} ${'cold total ms (max)'.padStart(20)}`,
  );
  for (const name of EmbeddedEncoderName.options) {
    const runs = [];
    for (let i = 0; i < COLD_RUNS; i++) runs.push(await coldLoad(name));
    const totals = runs.map((r) => r.importMs + r.loadMs + r.firstMs);
    console.log(
      `${`embedded:${name}`.padEnd(28)} ${median(runs.map((r) => r.importMs))
        .toFixed(0)
        .padStart(10)} ${median(runs.map((r) => r.loadMs))
        .toFixed(0)
        .padStart(8)} ${median(runs.map((r) => r.firstMs))
        .toFixed(1)
        .padStart(7)} ${`${median(totals).toFixed(0)} (${Math.max(...totals).toFixed(0)})`.padStart(20)}`,
    );
  }
  console.log(
    `(medians of ${COLD_RUNS} fresh processes; the vectors file is in the page cache after the first)\n`,
  );

  // Chunks per second of CPU time (the process's own, so other load on the machine does not count), and in
  // brackets per second of wall time.
  console.log(
    `${'encoder'.padEnd(28)} ${'corpus'.padEnd(6)} ${'cold chunks/s'.padStart(16)} ${'warm chunks/s'.padStart(16)}`,
  );
  for (const name of EmbeddedEncoderName.options) {
    for (const [kind, chunks] of Object.entries(corpora)) {
      const encoder = createEmbeddedEncoder(name);
      await encoder.encode(['warm up the code path'], 'document');
      const rates: string[] = [];
      for (let pass = 0; pass < 2; pass++) {
        const started = performance.now();
        const cpu = process.cpuUsage();
        for (let i = 0; i < chunks.length; i += 256)
          await encoder.encode(chunks.slice(i, i + 256), 'document');
        const used = process.cpuUsage(cpu);
        const wall = chunks.length / ((performance.now() - started) / 1000);
        rates.push(`${(chunks.length / ((used.user + used.system) / 1e6)).toFixed(0)} (${wall.toFixed(0)})`);
      }
      console.log(
        `${`embedded:${name}`.padEnd(28)} ${kind.padEnd(6)} ${rates[0]!.padStart(16)} ${rates[1]!.padStart(16)}`,
      );
    }
  }
}
