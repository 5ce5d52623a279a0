// A Secrets Manager secret created without a value: the template and the CDK asset never
// hold one. Values are put later from stdin (scripts/set-secret.ts), and a deploy
// never overwrites them, since the template has no value to change. None of these secrets
// has Secrets Manager rotation; each says why (cdk-nag AwsSolutions-SMG4), and
// docs/operations.md says how each is rotated by hand.
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { acknowledge } from '../nag.ts';

/** Why automatic rotation cannot work for what each kind of secret holds. */
export const NO_ROTATION = {
  telegram:
    'Holds Telegram bot tokens, which only @BotFather can revoke and reissue; a rotation function cannot mint one. ' +
    'Rotated by hand: revoke in BotFather, set-secret, register-webhooks (docs/operations.md).',
  agent:
    "Holds this agent's third-party credentials (model-provider API keys, MCP tokens), which only their issuers can reissue; " +
    'a rotation function cannot mint them. Rotated by hand at the issuer, then set-secret and a restart of the agent (docs/operations.md).',
  hooks:
    'Holds the bearer token external systems present to the hooks URL. A rotation function could mint one, but nothing could hand it to ' +
    'those callers, so every hook would fail until someone noticed. Rotated by hand: set-secret, then update the callers (docs/operations.md).',
  dashboard:
    'Holds the dashboard login token the operator keeps outside AWS (password manager). A rotation function could mint one, but it would ' +
    'lock the operator out until they read the secret; set-secret rotates it by hand and ends every session (docs/operations.md).',
} as const;

export class EmptySecret extends Construct {
  readonly secret: secretsmanager.CfnSecret;
  readonly secretName: string;
  /** The full ARN (with its random suffix), for IAM resources. */
  readonly secretArn: string;

  constructor(scope: Construct, id: string, props: { secretName: string; description: string; rotation: keyof typeof NO_ROTATION }) {
    super(scope, id);
    this.secretName = props.secretName;
    this.secret = new secretsmanager.CfnSecret(this, 'Resource', { name: props.secretName, description: props.description });
    this.secretArn = this.secret.ref;
    acknowledge(this, 'SMG4', NO_ROTATION[props.rotation]);
  }
}
