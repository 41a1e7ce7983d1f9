/** What the contract suites share: unique names per run, and the status of a failing call. */
import { HttpError } from '@tessera/core';

let counter = 0;
/** A name no earlier test of this process used, so suites can share one store. */
export const unique = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${counter++}`;

/** The status and detail a call fails with; throws when it does not fail with an HttpError. */
export async function refusal(promise: Promise<unknown>): Promise<{ status: number; detail: unknown }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HttpError) return { status: error.status, detail: error.detail };
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** A clock a suite moves: the real time plus `offset`. */
export const contractClock = () => {
  const clock = { offset: 0, now: () => Date.now() + clock.offset };
  return clock;
};
