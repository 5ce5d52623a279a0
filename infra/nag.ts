// cdk-nag acknowledgements in the one form that reaches validation-report.json with its
// reason. cdk-nag v3 drops a finding acknowledged as `AwsSolutions-ECS2` itself, before
// the report is written, so nobody can audit it; acknowledged as
// `AwsSolutions::AwsSolutions-ECS2` it is reported, and CDK files it under
// suppressedViolations with the reason (test/infra/fleet-app.test.ts audits them all).
import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

const NAG_PACK = 'AwsSolutions';

/** The acknowledgement id of a rule (`ECS2`), or of one finding of it (`IAM5`, `Resource::*`). */
const nagFinding = (rule: string, finding?: string) => `${NAG_PACK}::${NAG_PACK}-${rule}${finding === undefined ? '' : `[${finding}]`}`;

/** Acknowledges a cdk-nag finding on the construct that has it, with the reason a reviewer reads. */
export function acknowledge(scope: IConstruct, rule: string, reason: string, finding?: string): void {
  Validations.of(scope).acknowledge({ id: nagFinding(rule, finding), reason });
}
