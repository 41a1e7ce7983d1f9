/**
 * Keyframes of a video in one ffmpeg pass: a frame wherever the picture changes (scene score above a threshold)
 * and at least one every 1/fps seconds, at most `max_frames`, written as PNG files with their times.
 */
import path from 'node:path';
import { z } from 'zod';
import { CorruptMediaError } from './errors';
import { type Ffmpeg, lastError } from './ffmpeg';

/** A profile's `pipeline_config.frame_extraction`. */
export const FrameExtraction = z.object({
  fps: z.number().positive().max(60).default(1),
  max_frames: z.number().int().positive().max(10_000).default(300),
});
export type FrameExtraction = z.infer<typeof FrameExtraction>;

/** Scene-change score above which a frame starts a new shot; about 0.3 suits the packaged ffmpeg build. */
export const DEFAULT_SCENE_THRESHOLD = 0.3;
/** Keyframes wider than this are scaled down: enough for OCR and captions, bounded in memory and disk. */
export const MAX_FRAME_WIDTH = 1280;

export interface ExtractedFrame {
  frame_index: number;
  /** The frame's time. */
  ts_start: number;
  /** The next keyframe's time, or the video's end for the last one. */
  ts_end: number;
  /** The PNG file. */
  file: string;
}

/**
 * Seconds between forced frames: 1/fps, stretched when `max_frames` frames at that rate would not reach the
 * end of a video of `duration` seconds, so the frames cover all of it.
 */
export function frameInterval(config: FrameExtraction, duration: number | undefined): number {
  const interval = 1 / config.fps;
  return duration && duration / config.max_frames > interval ? duration / config.max_frames : interval;
}

/** The filter chain: select (first frame, scene changes, the interval), scale down, showinfo for the times. */
export function keyframeFilter(interval: number, sceneThreshold = DEFAULT_SCENE_THRESHOLD): string {
  // A hair under the interval, so frames whose timestamps are a rounding step short of it still count.
  const gap = Math.max(interval - 0.001, 0).toFixed(3);
  return [
    `select='isnan(prev_selected_t)+gt(scene,${sceneThreshold})+gte(t-prev_selected_t,${gap})'`,
    `scale='min(${MAX_FRAME_WIDTH},iw)':-1`,
    'showinfo',
  ].join(',');
}

const SHOWINFO = /\[Parsed_showinfo[^\]]*\]\s+n:\s*(\d+)\s+pts:\s*-?\d+\s+pts_time:(-?[\d.e+-]+)/;

/** The times showinfo printed for the frames it passed, in output order. */
export function parseShowinfoTimes(stderr: string): number[] {
  const times: number[] = [];
  for (const line of stderr.split('\n')) {
    const match = SHOWINFO.exec(line);
    if (match) times[Number(match[1])] = Math.max(0, Number(match[2]));
  }
  return times.filter((t) => t !== undefined);
}

/** Each frame's window: from its time to the next frame's (the last one to `duration`). */
export function frameWindows(
  times: number[],
  duration: number | undefined,
): { ts_start: number; ts_end: number }[] {
  return times.map((t, i) => {
    const next = times[i + 1] ?? Math.max(duration ?? t, t);
    return { ts_start: t, ts_end: Math.max(next, t) };
  });
}

export interface KeyframeOptions {
  /** Directory for the PNG files; the caller removes it. */
  dir: string;
  config: FrameExtraction;
  duration: number | undefined;
  sceneThreshold?: number;
  /** The file's name for messages. */
  name?: string;
  signal?: AbortSignal;
}

/** Extracts keyframes; `CorruptMediaError` when not one frame could be decoded. */
export async function extractKeyframes(
  ffmpeg: Ffmpeg,
  file: string,
  options: KeyframeOptions,
): Promise<ExtractedFrame[]> {
  const name = options.name ?? path.basename(file);
  const interval = frameInterval(options.config, options.duration);
  const args = [
    '-v',
    'info',
    '-i',
    file,
    '-an',
    '-sn',
    '-dn',
    '-vf',
    keyframeFilter(interval, options.sceneThreshold),
    '-vsync',
    'vfr',
    '-frames:v',
    String(options.config.max_frames),
    '-f',
    'image2',
    path.join(options.dir, '%06d.png'),
  ];
  const { code, stderr } = await ffmpeg.run(args, {
    inputs: [file],
    outputDir: options.dir,
    signal: options.signal,
    keep: /Parsed_showinfo.*pts_time/,
  });
  const times = parseShowinfoTimes(stderr);
  if (times.length === 0) {
    const reason = code === 0 ? 'it has no decodable video frame' : lastError(stderr).replaceAll(file, name);
    throw new CorruptMediaError(`${name} cannot be decoded: ${reason}`);
  }
  return frameWindows(times, options.duration).map((window, i) => ({
    frame_index: i,
    ...window,
    file: path.join(options.dir, `${String(i + 1).padStart(6, '0')}.png`),
  }));
}
