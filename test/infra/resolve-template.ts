// Resolves the intrinsics in synthesized templates to the concrete values AWS would give
// them in one account and region, so IAM policies can be evaluated offline. Physical
// names come from the templates (our resources are all named deterministically); ids AWS
// would invent (file systems, access points) are derived from logical ids; a parameter
// CloudFormation reads from SSM takes the value the app's own SSM parameter holds.
// Anything this does not know how to resolve is an error, never a guess.

import { createHash } from 'node:crypto';

export const ACCOUNT = '111122223333';
export const REGION = 'us-east-1';
const PSEUDO: Record<string, string> = { 'AWS::Partition': 'aws', 'AWS::Region': REGION, 'AWS::AccountId': ACCOUNT, 'AWS::URLSuffix': 'amazonaws.com' };

type Json = any;

const inventedId = (stack: string, logicalId: string) => createHash('sha256').update(`${stack}/${logicalId}`).digest('hex').slice(0, 17);
export type Templates = Map<string, Json>;

export class TemplateResolver {
  constructor(private readonly templates: Templates) {}

  resource(stack: string, logicalId: string): Json {
    const r = this.templates.get(stack)?.Resources?.[logicalId];
    if (!r) throw new Error(`no resource ${logicalId} in ${stack}`);
    return r;
  }

  /** Resolves every intrinsic inside `value`, as found in `stack`. */
  resolve(stack: string, value: Json): Json {
    if (Array.isArray(value)) return value.map((v) => this.resolve(stack, v));
    if (value === null || typeof value !== 'object') return value;
    const keys = Object.keys(value);
    if (keys.length === 1) {
      const [k] = keys as [string];
      const arg = value[k];
      switch (k) {
        case 'Ref':
          return this.ref(stack, arg);
        case 'Fn::GetAtt':
          return this.getAtt(stack, arg[0], arg[1]);
        case 'Fn::Join':
          return (this.resolve(stack, arg[1]) as string[]).join(arg[0]);
        case 'Fn::Select':
          return (this.resolve(stack, arg[1]) as string[])[Number(this.resolve(stack, arg[0]))];
        case 'Fn::Split':
          return (this.resolve(stack, arg[1]) as string).split(arg[0]);
        case 'Fn::ImportValue':
          return this.importValue(this.resolve(stack, arg));
        case 'Fn::Sub': {
          // The string form, or [string, variables]: ${Name} is a variable, a pseudo parameter or a Ref; ${Id.Attr} a GetAtt.
          const [text, vars] = (typeof arg === 'string' ? [arg, {}] : arg) as [string, Record<string, Json>];
          return text.replace(/\$\{([^}!]+)\}/g, (_, name: string) => {
            if (name in vars) return String(this.resolve(stack, vars[name]));
            const [id, attr] = name.split('.') as [string, string | undefined];
            return String(attr ? this.getAtt(stack, id, attr) : this.ref(stack, id));
          });
        }
      }
      if (k.startsWith('Fn::')) throw new Error(`cannot resolve ${k} in ${stack}`);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.resolve(stack, v)]));
  }

  private ref(stack: string, id: string): string | string[] {
    if (PSEUDO[id]) return PSEUDO[id];
    const parameter = this.templates.get(stack)?.Parameters?.[id];
    if (parameter) return this.ssmParameter(stack, id, parameter);
    const r = this.resource(stack, id);
    const p = r.Properties ?? {};
    switch (r.Type) {
      case 'AWS::SecretsManager::Secret':
        return `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:${p.Name}-AbC123`;
      case 'AWS::SQS::Queue':
        return `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/${p.QueueName}`;
      // Ids AWS invents: unique per stack and logical id, as they would be.
      case 'AWS::EFS::FileSystem':
        return `fs-${inventedId(stack, id)}`;
      case 'AWS::EFS::AccessPoint':
        return `fsap-${inventedId(stack, id)}`;
      case 'AWS::IAM::Role':
        // CloudFormation names an unnamed role after its stack and logical id.
        return String(p.RoleName ? this.resolve(stack, p.RoleName) : `${stack}-${id}`);
      case 'AWS::S3::Bucket':
        // An unnamed bucket gets a lower-case name from its stack and logical id, plus a suffix.
        return String(p.BucketName ? this.resolve(stack, p.BucketName) : `${stack}-${id}-${inventedId(stack, id).slice(0, 12)}`.toLowerCase());
      case 'AWS::Lambda::Function':
      case 'AWS::DynamoDB::Table':
      case 'AWS::Logs::LogGroup':
        return String(this.resolve(stack, p.FunctionName ?? p.TableName ?? p.LogGroupName));
    }
    throw new Error(`cannot resolve Ref ${id} (${r.Type}) in ${stack}`);
  }

  private getAtt(stack: string, id: string, attr: string): string {
    const r = this.resource(stack, id);
    const p = r.Properties ?? {};
    const name = (v: Json) => String(this.resolve(stack, v));
    if (attr === 'Arn') {
      switch (r.Type) {
        case 'AWS::SQS::Queue':
          return `arn:aws:sqs:${REGION}:${ACCOUNT}:${name(p.QueueName)}`;
        case 'AWS::DynamoDB::Table':
          return `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${name(p.TableName)}`;
        case 'AWS::Logs::LogGroup':
          return `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${name(p.LogGroupName)}:*`;
        case 'AWS::EFS::FileSystem':
          return `arn:aws:elasticfilesystem:${REGION}:${ACCOUNT}:file-system/${this.ref(stack, id) as string}`;
        case 'AWS::EFS::AccessPoint':
          return `arn:aws:elasticfilesystem:${REGION}:${ACCOUNT}:access-point/${this.ref(stack, id) as string}`;
        case 'AWS::Lambda::Function':
          return `arn:aws:lambda:${REGION}:${ACCOUNT}:function:${name(p.FunctionName)}`;
        case 'AWS::IAM::Role':
          return `arn:aws:iam::${ACCOUNT}:role/${this.ref(stack, id) as string}`;
        case 'AWS::ECS::Cluster':
          return `arn:aws:ecs:${REGION}:${ACCOUNT}:cluster/${name(p.ClusterName)}`;
        case 'AWS::S3::Bucket':
          return `arn:aws:s3:::${this.ref(stack, id) as string}`;
      }
    }
    if (attr === 'QueueName' && r.Type === 'AWS::SQS::Queue') return name(p.QueueName);
    if (attr === 'FileSystemId' && r.Type === 'AWS::EFS::FileSystem') return this.ref(stack, id) as string;
    if (attr === 'AccessPointId' && r.Type === 'AWS::EFS::AccessPoint') return this.ref(stack, id) as string;
    throw new Error(`cannot resolve GetAtt ${id}.${attr} (${r.Type}) in ${stack}`);
  }

  /**
   * A template parameter CloudFormation fills from SSM at deploy time: the value the
   * `AWS::SSM::Parameter` of that name (made by any stack of the app) would hold.
   */
  private ssmParameter(stack: string, id: string, parameter: Json): string | string[] {
    const type = String(parameter.Type);
    if (!type.startsWith('AWS::SSM::Parameter::Value<')) throw new Error(`cannot resolve Ref to the ${type} parameter ${id} in ${stack}`);
    for (const [s, t] of this.templates) {
      for (const r of Object.values<Json>(t.Resources ?? {})) {
        if (r.Type !== 'AWS::SSM::Parameter' || this.resolve(s, r.Properties.Name) !== parameter.Default) continue;
        const value = String(this.resolve(s, r.Properties.Value));
        return type.includes('<List<') ? value.split(',') : value;
      }
    }
    throw new Error(`no stack makes the SSM parameter ${parameter.Default} that ${stack} reads`);
  }

  private importValue(exportName: string): Json {
    for (const [stack, t] of this.templates) {
      for (const output of Object.values<Json>(t.Outputs ?? {})) {
        if (output.Export && this.resolve(stack, output.Export.Name) === exportName) return this.resolve(stack, output.Value);
      }
    }
    throw new Error(`no stack exports ${exportName}`);
  }

  /** Every identity policy attached to a role (inline Policies and AWS::IAM::Policy), resolved. */
  rolePolicies(stack: string, roleLogicalId: string): { name: string; policy: Json }[] {
    const role = this.resource(stack, roleLogicalId);
    if (role.Type !== 'AWS::IAM::Role') throw new Error(`${roleLogicalId} is a ${role.Type}, not a role`);
    if (role.Properties?.ManagedPolicyArns?.length) throw new Error(`${roleLogicalId} has managed policies, which this resolver cannot read`);
    const policies = (role.Properties?.Policies ?? []).map((p: Json) => ({ name: p.PolicyName, policy: this.resolve(stack, p.PolicyDocument) }));
    // A policy may attach to a role from any stack (by Ref in its own, by name elsewhere).
    const roleName = this.ref(stack, roleLogicalId) as string;
    for (const [s, t] of this.templates) {
      for (const [id, r] of Object.entries<Json>(t.Resources ?? {})) {
        if (r.Type !== 'AWS::IAM::Policy' && r.Type !== 'AWS::IAM::ManagedPolicy') continue;
        const attached = (r.Properties.Roles ?? []).some((ref: Json) => this.resolve(s, ref) === roleName);
        if (attached) policies.push({ name: id, policy: this.resolve(s, r.Properties.PolicyDocument) });
      }
    }
    return policies;
  }
}
