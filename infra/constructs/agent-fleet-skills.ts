// One agent's fleet skills on AWS (#19): its bundle (infra/fleet-skills-plan.ts) as a CDK file asset,
// which `cdk deploy` uploads to the bootstrap assets bucket under a key named by its content
// hash. The agent's task role is granted s3:GetObject on that one object, and the runtime is
// told where it is (CLAWFLEET_FLEET_SKILLS_OBJECT). A changed skill changes the key, so the task
// definition changes and the service rolls: the agent runs its new skills from its next start.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Stage } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3assets from 'aws-cdk-lib/aws-s3-assets';
import { Construct } from 'constructs';

export class AgentFleetSkills extends Construct {
  readonly asset: s3assets.Asset;
  /** s3://<bucket>/<key>, for the runtime's environment. */
  readonly objectUrl: string;

  constructor(scope: Construct, id: string, props: { bundle: Uint8Array }) {
    super(scope, id);
    // Its source file lives in the cloud assembly's own directory (cdk.out), named by its
    // content, so it goes when the assembly goes: a temp dir per synth was never removed.
    const dir = join(Stage.of(this)!.outdir, 'clawfleet-fleet-skills');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${createHash('sha256').update(props.bundle).digest('hex')}.json.gz`);
    writeFileSync(file, props.bundle);
    this.asset = new s3assets.Asset(this, 'Bundle', { path: file });
    this.objectUrl = `s3://${this.asset.s3BucketName}/${this.asset.s3ObjectKey}`;
  }

  /** Read on this one object, not on the assets bucket (whose other objects are other stacks'). */
  grantRead(role: iam.IGrantable): void {
    role.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: 'OwnFleetSkills', actions: ['s3:GetObject'], resources: [this.asset.bucket.arnForObjects(this.asset.s3ObjectKey)] }),
    );
  }
}
