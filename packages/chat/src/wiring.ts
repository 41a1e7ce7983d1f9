/** The production wiring of chat, built once per process. */
import { agents } from '@tessera/agents';
import type { ChatDeps } from './chat';
import { conversations, harnessKeys } from './stores';

let deps: ChatDeps | undefined;

export function chat(): ChatDeps {
  deps ??= { agents: agents(), conversations: conversations(), keys: harnessKeys(), now: Date.now };
  return deps;
}
