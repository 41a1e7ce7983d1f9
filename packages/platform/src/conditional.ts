import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/** A conditional DynamoDB write: its answer, or undefined when its condition did not hold. */
export async function conditional<T>(write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}
