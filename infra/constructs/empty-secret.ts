// A Secrets Manager secret created without a value: the template and the CDK asset never
// hold one. Values are put later from stdin (infra/scripts/set-secret.ts), and a deploy
// never overwrites them, since the template has no value to change.
import { Validations } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

export class EmptySecret extends Construct {
  readonly secret: secretsmanager.CfnSecret;
  readonly secretName: string;
  /** The full ARN (with its random suffix), for IAM resources. */
  readonly secretArn: string;

  constructor(scope: Construct, id: string, props: { secretName: string; description: string }) {
    super(scope, id);
    this.secretName = props.secretName;
    this.secret = new secretsmanager.CfnSecret(this, 'Resource', { name: props.secretName, description: props.description });
    this.secretArn = this.secret.ref;
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Holds third-party credentials (Telegram bot tokens, model-provider API keys) that only their issuers can rotate; ' +
        'Secrets Manager rotation has no way to mint new ones. Rotation is manual: set-secret puts the new value.',
    });
  }
}
