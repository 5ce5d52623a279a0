// A DynamoDB update whose condition may refuse it, where a refusal is an answer (counted
// already, a deeper value seen, no such live item) rather than a failure.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient, type UpdateCommandInput, type UpdateCommandOutput } from '@aws-sdk/lib-dynamodb';

/** Sends the update: its output, or undefined when its condition refused it; any other error is thrown. */
export async function conditionalUpdate(db: DynamoDBDocumentClient, input: UpdateCommandInput): Promise<UpdateCommandOutput | undefined> {
  try {
    return await db.send(new UpdateCommand(input));
  } catch (err) {
    if (err instanceof ConditionalCheckFailedException) return undefined;
    throw err;
  }
}
