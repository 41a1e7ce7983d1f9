export type { AnalyzeOptions, MediaToolkit, VideoOptions } from './analyze';
export {
  analyzeAudio,
  analyzeImage,
  analyzeMedia,
  analyzeVideo,
  embeddedToolkit,
  MAX_IMAGE_SIDE,
  mediaSegments,
} from './analyze';
export type { PcmOptions } from './audio';
export {
  chunkBounds,
  measureAudioSeconds,
  pcmArgs,
  pcmStream,
  readPcm,
  SPEECH_SAMPLE_RATE,
  wavFile,
} from './audio';
export type { Captioner } from './caption';
export { CAPTION_PROMPT, OpenAICaptioner } from './caption';
export type { MediaEnv } from './env';
export { mediaEnv, parseMediaEnv } from './env';
export type { InferenceService, MediaErrorType } from './errors';
export {
  ContentTypeMismatchError,
  CorruptMediaError,
  InferenceCallError,
  MediaContentError,
  MediaToolError,
  SidecarNotReadyError,
  TranscriptionChunkError,
} from './errors';
export type { Ffmpeg, FfmpegResult, FfmpegRunOptions, MediaProbe } from './ffmpeg';
export {
  defaultFfmpeg,
  FfmpegExitError,
  installedFfmpegPath,
  lastError,
  NativeFfmpeg,
  parseProbe,
  probeMedia,
} from './ffmpeg';
export type { ExtractedFrame, KeyframeOptions } from './keyframes';
export {
  DEFAULT_SCENE_THRESHOLD,
  extractKeyframes,
  FrameExtraction,
  frameInterval,
  frameWindows,
  keyframeFilter,
  MAX_FRAME_WIDTH,
  parseShowinfoTimes,
} from './keyframes';
export type { OcrEngine, OcrResult } from './ocr';
export { DEFAULT_MIN_CONFIDENCE, englishModelDir, keptText, TesseractOcr } from './ocr';
export type { EndpointOptions } from './openai-client';
export type { PdfOcrOptions } from './pdf';
export { ocrPdfPages, PDF_RENDER_SCALE } from './pdf';
export type { ResolvedMediaServices } from './services';
export {
  CAPTIONING_NOT_CONFIGURED,
  createMediaServices,
  MediaInferenceServices,
  resolveMediaServices,
  TRANSCRIPTION_NOT_CONFIGURED,
} from './services';
export type { MediaEmbedder, MediaEmbedding, SidecarIdentity, SidecarKind, SidecarOptions } from './sidecar';
export { EmbeddingSidecar } from './sidecar';
export type { MediaKind, SniffedType } from './sniff';
export { checkMediaType, mediaKindOf, SNIFF_BYTES, sniffMediaType } from './sniff';
export type { ByteSource } from './temp';
export { withSpooledFile, withTempDir } from './temp';
export type {
  Chunk,
  TimedText,
  TranscribeOptions,
  TranscriptionAnswer,
  TranscriptionClient,
} from './transcription';
export {
  addMissingTail,
  CHUNK_SECONDS,
  COVERAGE_TOLERANCE_S,
  isLooping,
  OpenAITranscriptionClient,
  speechEndIn,
  TranscriptionAnswerError,
  transcribeChunk,
  transcribeFile,
  unusable,
} from './transcription';
export type { MediaSegment } from './types';
export {
  AudioAnalysis,
  ImageAnalysis,
  Keyframe,
  OcrWord,
  Skipped,
  SpeechSpan,
  TranscriptSegment,
  VideoAnalysis,
} from './types';
export type { SpeechDetector, SpeechGateOptions } from './vad';
export {
  isSilent,
  SILENCE_RMS,
  SileroSpeechDetector,
  SPEECH_GATE_DEFAULTS,
  SpeechGate,
  VAD_FRAME_SAMPLES,
} from './vad';
export type { PatchVectors, VisualMultiVectorEncoder, VisualPoolingOptions } from './visual';
export { PATCH_DIM, VisualPoolingEncoder } from './visual';
