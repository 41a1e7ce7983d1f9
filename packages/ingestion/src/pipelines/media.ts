/**
 * Video, audio and images (document 1's extension table): the file, spooled to local disk, is analysed by
 * `@tessera/media` (keyframes by scene change and interval, OCR, speech spans, and a transcript and captions
 * when their endpoints are configured), then shaped into its profile's documents and the graph pass's
 * segments: `transcript_<i>`, `frame_<i>` captions and `frame_<i>_ocr_<b>` OCR blocks, each with its source.
 */
import type { AudioAnalysis, ImageAnalysis, MediaSegment, VideoAnalysis } from '@tessera/media';
import type { Profile } from '@tessera/search';
import { ingestionEnv } from '../env';
import { ContentError, HandOffError, PipelineError } from '../errors';
import { type MediaTools, MediaToolsMissingError } from './media-tools';
import type { FilePipeline, MediaReport, PipelineContext, PipelineOutput, Segment } from './types';

/** Speech spans a file's result lists at most (its documents keep every one). */
export const MAX_REPORTED_SPANS = 1000;
/** Seconds of audio one audio document covers, unless the profile's segmentation says otherwise. */
export const AUDIO_WINDOW_SECONDS = 30;

/**
 * The media tools, or why there are none here: the job goes to the media worker when there is one, else
 * the file fails. `why` says what needs them (`the video pipeline needs ffmpeg, OCR and speech detection`).
 */
export async function mediaToolsFor(context: PipelineContext, why: string): Promise<MediaTools> {
  try {
    if (!context.media) throw new MediaToolsMissingError('media processing is switched off here');
    return await context.media();
  } catch (error) {
    if (!(error instanceof MediaToolsMissingError)) throw error;
    if (context.handOffBefore !== undefined) {
      throw new HandOffError(`${context.name}: ${why}, which this process does not have`);
    }
    throw new ContentError(
      'UnsupportedContent',
      `${context.name}: ${why}, but ${error.message}, and no media worker is configured (TESSERA_MEDIA_TASKS)`,
    );
  }
}

type Services = ReturnType<MediaTools['createMediaServices']>;
const servicesByProfile = new Map<string, Services>();

/** The profile's model servers (its `inference_services` over the environment's), built once per setting. */
function servicesFor(tools: MediaTools, profile: Profile): Services {
  const parsed = tools.MediaInferenceServices.safeParse(profile.inference_services ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ContentError(
      'InvalidProfile',
      `Profile '${profile.profile_name}' has an invalid inference_services.${issue.path.join('.')}: ${issue.message}`,
    );
  }
  const key = `${profile.profile_name}\u0000${JSON.stringify(parsed.data)}`;
  let services = servicesByProfile.get(key);
  if (!services) {
    try {
      services = tools.createMediaServices(tools.resolveMediaServices(parsed.data));
    } catch (error) {
      throw new ContentError(
        'InvalidProfile',
        `Profile '${profile.profile_name}': ${(error as Error).message}`,
      );
    }
    servicesByProfile.set(key, services);
  }
  return services;
}

function frameExtraction(tools: MediaTools, profile: Profile) {
  const parsed = tools.FrameExtraction.safeParse(profile.pipeline_config.frame_extraction ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ContentError(
      'InvalidProfile',
      `Profile '${profile.profile_name}' has an invalid pipeline_config.frame_extraction.${issue.path.join('.')}: ${issue.message}`,
    );
  }
  return parsed.data;
}

/**
 * Hands the job to the media worker before it starts a file it could not finish in the attempt's time, by
 * the file's duration and `TESSERA_MEDIA_SECONDS_PER_MINUTE`.
 */
async function checkTime(tools: MediaTools, context: PipelineContext, file: string): Promise<void> {
  if (context.handOffBefore === undefined || !Number.isFinite(context.handOffBefore)) return;
  const { ffmpeg } = await tools.embeddedToolkit();
  const probe = await tools.probeMedia(ffmpeg, file, context.name).catch(() => undefined);
  if (!probe?.duration) return;
  const needed = (probe.duration / 60) * ingestionEnv.mediaSecondsPerMinute * 1000;
  if (Date.now() + needed > context.handOffBefore) {
    throw new HandOffError(
      `${context.name} is ${Math.round(probe.duration)} s long, about ${Math.round(needed / 1000)} s of work, more than this attempt has left`,
    );
  }
}

/** The analysis's failures as the job reports them. */
function asContentError(tools: MediaTools, name: string, error: unknown): unknown {
  if (error instanceof tools.MediaContentError) return new ContentError(error.errorType, error.message);
  if (error instanceof tools.TranscriptionChunkError)
    return new PipelineError(`${name}: ${error.message}`, error);
  if (error instanceof tools.InferenceCallError || error instanceof tools.SidecarNotReadyError) {
    return new PipelineError(`${name}: ${error.message}`, error);
  }
  return error;
}

async function analyze(
  context: PipelineContext & { file: string },
): Promise<{ tools: MediaTools; analysis: VideoAnalysis | AudioAnalysis | ImageAnalysis }> {
  const tools = await mediaToolsFor(
    context,
    `the ${context.profile.type} pipeline needs ffmpeg, OCR and speech detection`,
  );
  const services = servicesFor(tools, context.profile);
  const frames = context.profile.type === 'video' ? frameExtraction(tools, context.profile) : undefined;
  try {
    await checkTime(tools, context, context.file);
    const analysis = await tools.analyzeMedia(context.file, context.extension, {
      toolkit: await tools.embeddedToolkit(),
      transcriber: services.transcriber,
      captioner: services.captioner,
      name: context.name,
      signal: context.signal,
      tempDir: ingestionEnv.mediaSpoolDir,
      ...(frames ? { frameExtraction: frames } : {}),
    });
    return { tools, analysis };
  } catch (error) {
    throw asContentError(tools, context.name, error);
  }
}

const asSegment = (segment: MediaSegment): Segment => ({ ...segment });

/** Transcript text spoken in [start, end] (a zero-length window: at its instant). */
function spokenIn(transcript: VideoAnalysis['transcript'], start: number, end: number) {
  return transcript.filter((t) =>
    end > start ? t.ts_start < end && t.ts_end > start : t.ts_start <= start && t.ts_end >= start,
  );
}

function report(analysis: VideoAnalysis | AudioAnalysis | ImageAnalysis): MediaReport {
  const skipped = Object.keys(analysis.skipped).length > 0 ? analysis.skipped : undefined;
  const spans =
    analysis.kind !== 'image' && analysis.transcript.length === 0 && analysis.skipped.transcription
      ? analysis.speech_spans.slice(0, MAX_REPORTED_SPANS)
      : undefined;
  const media: NonNullable<MediaReport['media']> = { kind: analysis.kind, models: analysis.models };
  if (analysis.kind !== 'image') {
    media.duration = analysis.duration;
    media.transcript_segments = analysis.transcript.length;
  }
  if (analysis.kind !== 'audio') {
    media.width = analysis.width;
    media.height = analysis.height;
  }
  if (analysis.kind === 'video') media.keyframes = analysis.keyframes.length;
  return { ...(skipped && { skipped }), ...(spans && { speech_spans: spans }), media };
}

/** Frame documents (the video profile's schema) with their transcript window; segments for the graph. */
export function videoOutput(
  name: string,
  extension: string,
  analysis: VideoAnalysis,
  segments: MediaSegment[],
): PipelineOutput {
  const documentSegments: string[][] = [];
  const documents = analysis.keyframes.map((frame) => {
    const spoken = spokenIn(analysis.transcript, frame.ts_start, frame.ts_end);
    const own = segments
      .filter((s) => s.segment_id === frame.segment_id || s.segment_id.startsWith(`${frame.segment_id}_ocr_`))
      .map((s) => s.segment_id);
    documentSegments.push([...own, ...spoken.map((t) => t.segment_id)]);
    return {
      fields: {
        title: name,
        video_id: name,
        frame_index: frame.frame_index,
        ts_start: frame.ts_start,
        ts_end: frame.ts_end,
        ocr_text: frame.ocr_text,
        caption: frame.caption,
        audio_transcript: spoken.map((t) => t.text).join(' '),
        // The schema's earlier names for the same values.
        frame_id: frame.frame_index,
        start_time: frame.ts_start,
        end_time: frame.ts_end,
        frame_description: frame.caption ?? '',
        metadata: JSON.stringify({
          extension,
          segment_id: frame.segment_id,
          duration: analysis.duration,
          width: analysis.width,
          height: analysis.height,
        }),
      },
    };
  });
  return { documents, segments: segments.map(asSegment), documentSegments, report: report(analysis) };
}

/** Consecutive stretches grouped into windows of about `seconds` (a stretch longer than that stands alone). */
function windows<T extends { start: number; end: number }>(items: T[], seconds: number): T[][] {
  const groups: T[][] = [];
  for (const item of items) {
    const group = groups.at(-1);
    if (group && item.end - group[0]!.start <= seconds) group.push(item);
    else groups.push([item]);
  }
  return groups;
}

function audioWindowSeconds(profile: Profile): number {
  const value = profile.strategies.segmentation?.params?.window_seconds;
  return typeof value === 'number' && value > 0 ? value : AUDIO_WINDOW_SECONDS;
}

/**
 * Audio documents: the transcript in windows of about 30 s, or, without a transcript, the speech spans in
 * such windows (no words, but where speech is), or one document for a file without speech.
 */
export function audioOutput(
  name: string,
  extension: string,
  analysis: AudioAnalysis,
  segments: MediaSegment[],
  windowSeconds = AUDIO_WINDOW_SECONDS,
): PipelineOutput {
  const metadata = (extra: object) => JSON.stringify({ extension, duration: analysis.duration, ...extra });
  const documentSegments: string[][] = [];
  let documents: PipelineOutput['documents'];
  if (analysis.transcript.length > 0) {
    const groups = windows(
      analysis.transcript.map((t) => ({ ...t, start: t.ts_start, end: t.ts_end })),
      windowSeconds,
    );
    documents = groups.map((group, k) => {
      documentSegments.push(group.map((t) => t.segment_id));
      return {
        fields: {
          title: name,
          segment_id: `window_${k}`,
          start_time: group[0]!.ts_start,
          end_time: group.at(-1)!.ts_end,
          transcript: group.map((t) => t.text).join(' '),
          metadata: metadata({ segments: group.map((t) => t.segment_id) }),
        },
      };
    });
  } else if (analysis.speech_spans.length > 0) {
    documents = windows(analysis.speech_spans, windowSeconds).map((group, k) => {
      documentSegments.push([]);
      return {
        fields: {
          title: name,
          segment_id: `speech_${k}`,
          start_time: group[0]!.start,
          end_time: group.at(-1)!.end,
          transcript: '',
          metadata: metadata({ speech_spans: group }),
        },
      };
    });
  } else {
    documentSegments.push([]);
    documents = [
      {
        fields: {
          title: name,
          segment_id: 'audio',
          start_time: 0,
          end_time: analysis.duration,
          transcript: '',
          metadata: metadata({ speech: false }),
        },
      },
    ];
  }
  return { documents, segments: segments.map(asSegment), documentSegments, report: report(analysis) };
}

/** One image document: its caption and OCR text. */
export function imageOutput(
  name: string,
  extension: string,
  analysis: ImageAnalysis,
  segments: MediaSegment[],
): PipelineOutput {
  return {
    documents: [
      {
        fields: {
          title: name,
          caption: analysis.caption,
          ocr_text: analysis.ocr_text,
          metadata: JSON.stringify({ extension, width: analysis.width, height: analysis.height }),
        },
      },
    ],
    segments: segments.map(asSegment),
    documentSegments: [segments.map((s) => s.segment_id)],
    report: report(analysis),
  };
}

const mediaPipeline = (kind: FilePipeline['kind']): FilePipeline => ({
  kind,
  reads: 'file',
  async run(input) {
    const { tools, analysis } = await analyze(input);
    const segments = tools.mediaSegments(analysis);
    if (analysis.kind === 'video') return videoOutput(input.name, input.extension, analysis, segments);
    if (analysis.kind === 'audio') {
      return audioOutput(input.name, input.extension, analysis, segments, audioWindowSeconds(input.profile));
    }
    return imageOutput(input.name, input.extension, analysis, segments);
  },
});

export const videoPipeline = mediaPipeline('video');
export const imagePipeline = mediaPipeline('image');
export const audioPipeline = mediaPipeline('audio');
