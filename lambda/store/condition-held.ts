/** A conditional write whose failed condition is an answer, not an error. */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';

/** Whether `write` committed: false when its condition failed; any other error is thrown. */
export async function conditionHeld(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
