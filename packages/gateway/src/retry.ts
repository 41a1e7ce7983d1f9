/** Bot API calls answered 429 wait the `retry_after` Telegram names, then go again (a few times at most). */
import type { Transformer } from 'grammy';

export function honourRetryAfter(
  options: { maxRetries?: number; maxWaitSeconds?: number } = {},
): Transformer {
  const maxRetries = options.maxRetries ?? 3;
  const maxWait = options.maxWaitSeconds ?? 60;
  return async (prev, method, payload, signal) => {
    for (let attempt = 0; ; attempt++) {
      const result = await prev(method, payload, signal);
      const wait = !result.ok && result.error_code === 429 ? result.parameters?.retry_after : undefined;
      if (wait === undefined || attempt >= maxRetries || wait > maxWait) return result;
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    }
  };
}
