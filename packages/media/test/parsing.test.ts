import { describe, expect, it } from 'vitest';
import {
  chunkBounds,
  FrameExtraction,
  frameInterval,
  frameWindows,
  keyframeFilter,
  lastError,
  parseProbe,
  parseShowinfoTimes,
  wavFile,
} from '../src/index';

const MP4_PROBE = `Input #0, mov,mp4,m4a,3gp,3g2,mj2, from 'clip.mp4':
  Metadata:
    major_brand     : isom
  Duration: 00:01:06.50, start: 0.000000, bitrate: 69 kb/s
    Stream #0:0(und): Video: h264 (High) (avc1 / 0x31637661), yuv420p, 640x360 [SAR 1:1 DAR 16:9], 15 kb/s, 29.97 fps, 30 tbr, 10240 tbn, 20 tbc (default)
    Stream #0:1(und): Audio: aac (LC) (mp4a / 0x6134706D), 22050 Hz, mono, fltp, 71 kb/s (default)
At least one output file must be specified`;

describe('parseProbe', () => {
  it('reads duration, the video stream and the audio stream', () => {
    expect(parseProbe(MP4_PROBE)).toEqual({
      duration: 66.5,
      video: { codec: 'h264', width: 640, height: 360, fps: 29.97 },
      audio: { codec: 'aac', sampleRate: 22050, channels: 'mono' },
    });
  });

  it('leaves out cover art, an unknown duration and a missing stream', () => {
    const mp3 = `Input #0, mp3, from 'song.mp3':
  Duration: N/A, start: 0.025057, bitrate: N/A
    Stream #0:0: Audio: mp3, 44100 Hz, stereo, fltp, 128 kb/s
    Stream #0:1: Video: mjpeg (Baseline), yuvj420p(pc, bt470bg/unknown/unknown), 500x500, 90k tbr, 90k tbn (attached pic)`;
    expect(parseProbe(mp3)).toEqual({
      duration: undefined,
      audio: { codec: 'mp3', sampleRate: 44100, channels: 'stereo' },
    });
  });

  it('answers undefined when ffmpeg found no input, and lastError names why', () => {
    const stderr = `[mov,mp4,m4a,3gp,3g2,mj2 @ 0x5c] moov atom not found
/tmp/x/input.mp4: Invalid data found when processing input`;
    expect(parseProbe(stderr)).toBeUndefined();
    expect(lastError(stderr)).toBe('/tmp/x/input.mp4: Invalid data found when processing input');
    expect(lastError('')).toBe('no message');
  });
});

describe('keyframe selection', () => {
  it('forces a frame every 1/fps seconds, stretched so max_frames cover the whole video', () => {
    const config = FrameExtraction.parse({ fps: 2, max_frames: 100 });
    expect(frameInterval(config, 30)).toBe(0.5);
    expect(frameInterval(config, 300)).toBe(3);
    expect(frameInterval(config, undefined)).toBe(0.5);
    expect(FrameExtraction.parse({})).toEqual({ fps: 1, max_frames: 300 });
    expect(() => FrameExtraction.parse({ fps: 0 })).toThrow();
  });

  it('builds the select, scale and showinfo chain with the scene threshold', () => {
    expect(keyframeFilter(1, 0.3)).toBe(
      "select='isnan(prev_selected_t)+gt(scene,0.3)+gte(t-prev_selected_t,0.999)',scale='min(1280,iw)':-1,showinfo",
    );
  });

  it('reads the passed frames’ times from showinfo lines and gives each a window to the next', () => {
    const stderr = [
      '[Parsed_showinfo_2 @ 0x5b8c980] config in time_base: 1/10240, frame_rate: 10/1',
      '[Parsed_showinfo_2 @ 0x5b8c980] n:   0 pts:      0 pts_time:0       pos:       48 fmt:rgb24',
      '[Parsed_showinfo_2 @ 0x5b8c980] color_range:tv color_space:unknown',
      '[Parsed_showinfo_2 @ 0x5b8c980] n:   1 pts:  20480 pts_time:2       pos:    17270 fmt:rgb24',
      '[Parsed_showinfo_2 @ 0x5b8c980] n:   2 pts:  30720 pts_time:3.1     pos:    31225 fmt:rgb24',
    ].join('\n');
    const times = parseShowinfoTimes(stderr);
    expect(times).toEqual([0, 2, 3.1]);
    expect(frameWindows(times, 6)).toEqual([
      { ts_start: 0, ts_end: 2 },
      { ts_start: 2, ts_end: 3.1 },
      { ts_start: 3.1, ts_end: 6 },
    ]);
    expect(frameWindows([4], undefined)).toEqual([{ ts_start: 4, ts_end: 4 }]);
  });
});

describe('audio helpers', () => {
  it('cuts a duration into 30-second chunks, dropping a tail under 0.1 s', () => {
    expect(chunkBounds(75, 30)).toEqual([
      { start: 0, end: 30 },
      { start: 30, end: 60 },
      { start: 60, end: 75 },
    ]);
    expect(chunkBounds(60.05, 30)).toHaveLength(2);
    expect(chunkBounds(0, 30)).toEqual([]);
  });

  it('wraps 16-bit PCM in a RIFF/WAVE header', () => {
    const wav = wavFile(Buffer.alloc(32_000));
    expect(wav.length).toBe(44 + 32_000);
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect([wav.readUInt16LE(22), wav.readUInt32LE(24), wav.readUInt16LE(34), wav.readUInt32LE(40)]).toEqual([
      1, 16_000, 16, 32_000,
    ]);
  });
});
