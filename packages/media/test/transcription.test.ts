import { closedPortUrl, failure, useServers } from '@tessera/testing';
import { type TranscriptionRequest, transcriptionServer } from '@tessera/testing/media';
import { describe, expect, it } from 'vitest';
import {
  addMissingTail,
  InferenceCallError,
  isLooping,
  OpenAITranscriptionClient,
  speechEndIn,
  TranscriptionChunkError,
  transcribeChunk,
  unusable,
  wavFile,
} from '../src/index';

describe('isLooping', () => {
  it('finds one n-gram repeated back to back over most of the text', () => {
    expect(isLooping('Thank you. Thank you. Thank you. Thank you. Thank you.')).toBe(true);
    expect(isLooping('the the the the the the')).toBe(true);
    expect(isLooping('So we went on. I think I think I think I think I think I think')).toBe(true);
    expect(isLooping(`${'We measured the samples again. '.repeat(3)}Then we wrote it down.`)).toBe(false);
  });

  it('finds a loop of ten repeats anywhere, even after real text', () => {
    const text = `Marie Curie opened the lab notebook and began to explain the measurements she had taken over the previous weeks in great detail. ${'and then '.repeat(10)}`;
    expect(isLooping(text)).toBe(true);
  });

  it('leaves natural repetition alone', () => {
    expect(isLooping('yes yes we did it')).toBe(false);
    expect(isLooping('no no no')).toBe(false);
    expect(
      isLooping('Polonium and radium, polonium and radium: both were found in pitchblende in 1898.'),
    ).toBe(false);
    expect(isLooping('')).toBe(false);
  });
});

describe('unusable', () => {
  it('names empty and looping answers, and accepts others', () => {
    expect(unusable({ text: '  ' })).toBe('empty answer');
    expect(unusable({ text: '', segments: [{ start: 0, end: 1, text: 'hi there' }] })).toBeUndefined();
    expect(unusable({ text: 'ok ok ok ok ok ok ok' })).toMatch(/^looping answer: ok ok/);
    expect(unusable({ text: 'Polonium was named after Poland.' })).toBeUndefined();
  });
});

describe('addMissingTail', () => {
  const segments = [
    { start: 0, end: 4, text: 'Marie Curie discovered polonium.' },
    { start: 4, end: 9, text: 'She named it after Poland.' },
  ];

  it('adds the words after the segments as one segment up to the end', () => {
    const text = 'Marie Curie discovered polonium. She named it after Poland. Radium followed in December.';
    expect(addMissingTail(segments, text, 28)).toEqual([
      ...segments,
      { start: 9, end: 28, text: 'Radium followed in December.' },
    ]);
  });

  it('keeps the segments when the text adds nothing', () => {
    expect(
      addMissingTail(segments, 'Marie Curie discovered polonium! She named it after Poland', 28),
    ).toEqual(segments);
  });

  it('takes the whole text as one segment when it disagrees with the segments and says more', () => {
    const text = 'Mary Curry discovered polonium. She named it after Poland, her homeland, in July.';
    expect(addMissingTail(segments, text, 28)).toEqual([{ start: 0, end: 28, text }]);
    expect(addMissingTail(segments, 'Something else.', 28)).toEqual(segments);
  });

  it('gives the text a segment of its own when there were no segments', () => {
    expect(addMissingTail([], 'Hello there.', 12)).toEqual([{ start: 0, end: 12, text: 'Hello there.' }]);
  });
});

describe('speechEndIn', () => {
  it('answers where speech ends inside a chunk, relative to its start, 0 without speech', () => {
    const spans = [
      { start: 2, end: 5 },
      { start: 28, end: 41 },
      { start: 70, end: 71 },
    ];
    expect(speechEndIn(spans, 0, 30)).toBe(30);
    expect(speechEndIn(spans, 30, 60)).toBe(11);
    expect(speechEndIn(spans, 90, 120)).toBe(0);
  });
});

const servers = useServers();
const WAV = wavFile(Buffer.alloc(16_000 * 2 * 30));
const chunk = (speechEnd?: number) => ({ index: 3, start: 90, end: 120, wav: WAV, speechEnd });

async function client(answer: Parameters<typeof transcriptionServer>[0]) {
  const server = await servers.start(transcriptionServer(answer));
  return {
    server,
    client: new OpenAITranscriptionClient({
      baseURL: `${server.url}/v1`,
      model: 'whisper-large-v3',
      attempts: 1,
    }),
  };
}

describe('OpenAITranscriptionClient and transcribeChunk (integration: loopback transcription server)', () => {
  it('sends the chunk as a multipart WAV with model, verbose_json and temperature 0, and keeps the segments', async () => {
    const seen: TranscriptionRequest[] = [];
    const { client: c } = await client((request) => {
      seen.push(request);
      return {
        text: 'Polonium was found in 1898. It was named after Poland.',
        segments: [
          { start: 0.5, end: 14, text: ' Polonium was found in 1898.' },
          { start: 14, end: 29.5, text: ' It was named after Poland.' },
        ],
      };
    });
    const result = await transcribeChunk(c, chunk());
    expect(result).toEqual({
      requests: 1,
      segments: [
        { start: 0.5, end: 14, text: 'Polonium was found in 1898.' },
        { start: 14, end: 29.5, text: 'It was named after Poland.' },
      ],
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      model: 'whisper-large-v3',
      response_format: 'verbose_json',
      temperature: '0',
      file: { name: 'chunk_3.wav', type: 'audio/wav' },
      seconds: 30,
    });
    expect(seen[0]!.file.bytes.equals(WAV)).toBe(true);
  });

  it('asks again as plain json when the segments stop before the speech ends, and adds the tail', async () => {
    const seen: string[] = [];
    const { client: c } = await client((request) => {
      seen.push(request.response_format);
      return {
        text: 'Radium glows in the dark. Marie kept a vial by her bed.',
        segments: [{ start: 0, end: 10, text: 'Radium glows in the dark.' }],
      };
    });
    const result = await transcribeChunk(c, chunk(25));
    expect(seen).toEqual(['verbose_json', 'json']);
    expect(result.segments).toEqual([
      { start: 0, end: 10, text: 'Radium glows in the dark.' },
      { start: 10, end: 25, text: 'Marie kept a vial by her bed.' },
    ]);
  });

  it('does not ask again when the segments reach where the speech detector says speech ends', async () => {
    const { client: c, server } = await client(() => ({
      text: 'Short remark.',
      segments: [{ start: 0, end: 9, text: 'Short remark.' }],
    }));
    expect((await transcribeChunk(c, chunk(10))).requests).toBe(1);
    expect(server.requests).toHaveLength(1);
  });

  it('asks once more after a looping answer and uses the second', async () => {
    const { client: c, server } = await client((_request, count) =>
      count === 1
        ? {
            text: 'Thank you. '.repeat(12),
            segments: [{ start: 0, end: 30, text: 'Thank you. '.repeat(12) }],
          }
        : { text: 'The lab was cold.', segments: [{ start: 0, end: 29.8, text: 'The lab was cold.' }] },
    );
    const result = await transcribeChunk(c, chunk());
    expect(result.segments).toEqual([{ start: 0, end: 29.8, text: 'The lab was cold.' }]);
    expect(result.requests).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  it('fails the chunk, naming it and the cause, when the answer still loops after its second request', async () => {
    const { client: c } = await client(() => ({ text: 'la la la la la la la la la la la', segments: [] }));
    const error = await failure(transcribeChunk(c, chunk()));
    expect(error).toBeInstanceOf(TranscriptionChunkError);
    expect(error).toMatchObject({ chunk: 3, start: 90, end: 120, attempts: 2, status: 502 });
    expect(error.message).toBe(
      'Transcription chunk 3 (90.0–120.0 s) is unusable after 2 attempts: looping answer: la la la la la la la la la la la',
    );
  });

  it('fails a chunk with detected speech that is answered empty twice', async () => {
    const { client: c, server } = await client(() => ({ text: '', segments: [] }));
    const error = await failure(transcribeChunk(c, chunk(20)));
    expect(error.message).toBe(
      'Transcription chunk 3 (90.0–120.0 s) is unusable after 2 attempts: empty answer',
    );
    expect(server.requests).toHaveLength(2);
  });

  it('takes an empty answer as silence when no speech detector ran', async () => {
    const { client: c, server } = await client(() => ({ text: '' }));
    expect(await transcribeChunk(c, chunk())).toEqual({ segments: [], requests: 2 });
    expect(server.requests).toHaveLength(2);
  });

  it('asks once more after an answer out of contract, then fails naming it', async () => {
    const { client: c } = await client(() => ({ status: 200, json: { transcript: 'wrong field' } }));
    const error = await failure(transcribeChunk(c, chunk()));
    expect(error).toBeInstanceOf(TranscriptionChunkError);
    expect(error.message).toMatch(
      /after 2 attempts: answered out of contract \(text: .*\{"transcript":"wrong field"\}/,
    );
  });

  it('fails at once, naming the endpoint and status, when the server errors through the client’s retries', async () => {
    const server = await servers.start(() => ({
      status: 500,
      json: { error: { message: 'CUDA out of memory' } },
    }));
    const c = new OpenAITranscriptionClient({ baseURL: `${server.url}/v1`, model: 'm', attempts: 2 });
    const error = await failure(transcribeChunk(c, chunk()));
    expect(error).toBeInstanceOf(TranscriptionChunkError);
    expect(error.message).toBe(
      `Transcription chunk 3 (90.0–120.0 s) is unusable after 1 attempt: Transcription endpoint at ${server.url}/v1 answered 500: CUDA out of memory (2 attempts)`,
    );
    expect((error.cause as InferenceCallError).service).toBe('transcription');
    expect(server.requests).toHaveLength(2);
  });

  it('names a refused connection', async () => {
    const url = await closedPortUrl();
    const c = new OpenAITranscriptionClient({ baseURL: `${url}/v1`, model: 'm', attempts: 1 });
    const error = await failure(c.transcribe(WAV, 'json', 'a.wav'));
    expect(error).toBeInstanceOf(InferenceCallError);
    expect(error.message).toMatch(
      new RegExp(`^Transcription endpoint at ${url}/v1 did not answer: .*ECONNREFUSED`),
    );
  });

  it('sends a bearer key only when one is configured, and the language hint', async () => {
    const server = await servers.start(transcriptionServer(() => ({ text: 'ok' })));
    await new OpenAITranscriptionClient({ baseURL: `${server.url}/v1`, model: 'm' }).transcribe(
      WAV,
      'json',
      'a.wav',
    );
    await new OpenAITranscriptionClient({
      baseURL: `${server.url}/v1`,
      model: 'm',
      apiKey: 'sk-test',
      language: 'fr',
    }).transcribe(WAV, 'json', 'a.wav');
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([undefined, 'Bearer sk-test']);
    expect(server.requests[1]!.raw.toString('latin1')).toMatch(/name="language"\r\n\r\nfr\r\n/);
  });
});
