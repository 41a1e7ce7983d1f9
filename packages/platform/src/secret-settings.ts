/**
 * The settings that hold keys. They reach a function only as a reference (`<VAR>_SECRET_ARN`, a Secrets
 * Manager ARN, or `<VAR>_PARAMETER`, an SSM parameter name or ARN), resolved at cold start by
 * resolveSecretSettings; a deploy refuses them as plain settings. Kept apart from secrets.ts so the stacks
 * can read the list without the platform's settings and clients.
 */
export const SECRET_SETTINGS = [
  'TESSERA_LLM_API_KEY',
  'TESSERA_EMBEDDINGS_API_KEY',
  'TESSERA_TRANSCRIPTION_API_KEY',
  'TESSERA_CAPTION_API_KEY',
  // The Telegram gateway in AWS: the bot's token, and the secret Telegram sends back on every webhook call.
  'TELEGRAM_BOT_TOKEN',
  'TELEGRAM_WEBHOOK_SECRET',
] as const;
