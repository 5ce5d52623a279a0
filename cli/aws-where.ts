// Which AWS account and region a --aws command reached, said before it acts, so an operator
// signed in to the wrong account (or region) sees it at once. One STS GetCallerIdentity; it
// is also the credentials check, so a missing or expired sign-in is said in its own words.
import { callerIdentity } from '../shared/adapters/aws/caller-identity.ts';
import type { AwsSettings } from './aws-env.ts';
import { awsErrorText } from './aws-errors.ts';
import { CliError, EXIT } from './command.ts';

/** `on AWS account 123456789012, us-east-1` (and the endpoint, for an emulator); `fleet` names what the failure could not reach. */
export async function awsWhere(fleet: string, aws: AwsSettings): Promise<string> {
  let account: string;
  try {
    ({ account } = await callerIdentity(aws));
  } catch (err) {
    throw new CliError(EXIT.failed, awsErrorText(`fleet "${fleet}" on AWS`, err, aws));
  }
  return `on AWS account ${account === 'unknown' ? '(unknown)' : account}, ${aws.region}${aws.endpoint ? ` at ${aws.endpoint}` : ''}`;
}
