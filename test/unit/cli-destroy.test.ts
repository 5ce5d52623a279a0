// `clawfleet destroy`, offline, over an account in memory (the emulator run is
// test/integration/destroy.test.ts): the plan word for word, calling nothing that changes
// anything; the confirmation; a run that exports the tables, pairings and workspaces, keeps the
// secrets CloudFormation would delete at once, turns off the control plane's termination
// protection saying so, deletes the stacks and lists what stays billed; a failed step resumed
// without doing anything twice; a stack clawfleet did not make left alone. The Bot API is the
// fake Telegram server.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../../cli/command.ts';
import type { DestroyAccount, SecretListing, StackResource, StackState } from '../../cli/destroy/account.ts';
import { runDestroy } from '../../cli/destroy.ts';
import type { FleetConfigInput } from '../../shared/config/schema.ts';
import type { PairingRecord } from '../../shared/ports.ts';
import { start as startTelegram, type FakeTelegram } from '../support/fake-telegram.ts';
import { captureIO } from './cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const BOT = '1000002:AAdestroy-bot-token-000000000000000000';
const NOW = Date.parse('2026-12-03T10:00:00Z');
const DAY = 86_400_000;
const FLEET: FleetConfigInput = {
  fleet: 'dd',
  agents: { defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }, list: [{ id: 'fran', default: true }, { id: 'grif' }] },
  models: { providers: { openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY' } } },
  bindings: [{ agentId: 'fran', match: { channel: 'telegram', accountId: 'fran' } }],
  channels: { telegram: { apiRoot: 'http://placeholder', accounts: { fran: { botTokenSecret: 'FRAN_BOT_TOKEN' } } } },
};
const APPROVED: PairingRecord = {
  channel: 'telegram',
  accountId: 'fran',
  peerId: '5001',
  displayName: 'Ann',
  code: 'K7M2QX9P',
  status: 'approved',
  createdAt: NOW - DAY,
  expiresAt: NOW,
};

let tg: FakeTelegram;
const dirs: string[] = [];
beforeAll(async () => {
  tg = await startTelegram({ bots: [{ token: BOT, username: 'dd_fran_bot' }] });
});
afterAll(async () => {
  await tg?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface MemoryStack {
  state: StackState;
  resources: StackResource[];
  /** Tables it holds, by name (deleted with it unless kept). */
  tables?: string[];
  /** Set to make its delete fail, with the reason CloudFormation gives. */
  failDelete?: string;
}

/** An account in memory, as the AWS one behaves: stacks delete what they do not keep (their secrets at once), protection refuses a delete. */
class MemoryDestroyAccount implements DestroyAccount {
  readonly region = 'eu-west-1';
  readonly stacks = new Map<string, MemoryStack>();
  readonly secretStore = new Map<string, { value?: string; deletionDate?: number }>();
  readonly tables = new Map<string, Record<string, unknown>[]>();
  schedules = ['agent-fran-tidy'];
  pairings: PairingRecord[] = [APPROVED];
  workspaces: Record<string, Record<string, string>> = { fran: { 'MEMORY.md': 'Ann likes tea\n', 'notes/a.md': 'a\n' }, grif: { 'MEMORY.md': 'grif\n' } };
  readonly changes: string[] = [];
  pulls = 0;

  constructor() {
    const stack = (name: string, description: string, resources: StackResource[], extra: Partial<MemoryStack> = {}) =>
      this.stacks.set(name, { state: { name, status: 'CREATE_COMPLETE', description, terminationProtection: false, outputs: {} }, resources, ...extra });
    const secret = (logicalId: string, name: string): StackResource => ({
      logicalId,
      type: 'AWS::SecretsManager::Secret',
      keptOnDelete: false,
      physicalId: `arn:${name}`,
    });
    stack(
      'dd-control-plane',
      'clawfleet dd: control plane (tables, functions, cluster, network)',
      [
        { logicalId: 'Registry', type: 'AWS::DynamoDB::Table', keptOnDelete: true, physicalId: 'dd-registry' },
        { logicalId: 'Sessions', type: 'AWS::DynamoDB::Table', keptOnDelete: true, physicalId: 'dd-sessions' },
        { logicalId: 'Dedupe', type: 'AWS::DynamoDB::Table', keptOnDelete: false, physicalId: 'dd-dedupe' },
        { logicalId: 'Workspaces', type: 'AWS::EFS::FileSystem', keptOnDelete: true, physicalId: 'fs-0123' },
        { logicalId: 'Staging', type: 'AWS::S3::Bucket', keptOnDelete: true, physicalId: 'dd-staging-abc' },
        { logicalId: 'Queue', type: 'AWS::SQS::Queue', keptOnDelete: false, physicalId: 'https://sqs/dd-x' },
        secret('Telegram', 'clawfleet/dd/control/telegram'),
        secret('Dashboard', 'clawfleet/dd/control/dashboard'),
      ],
      { tables: ['dd-registry', 'dd-sessions', 'dd-dedupe'] },
    );
    this.stacks.get('dd-control-plane')!.state.terminationProtection = true;
    for (const id of ['fran', 'grif'])
      stack(`dd-agent-${id}`, `clawfleet dd: agent ${id} (queues, secret, runtime, workspace, logs)`, [secret('Secret', `clawfleet/dd/agents/${id}`)]);
    // Someone else's stack, named like an agent's.
    stack('dd-agent-visitor', 'not clawfleet', []);
    this.secretStore.set('clawfleet/dd/control/telegram', { value: JSON.stringify({ FRAN_BOT_TOKEN: BOT }) });
    this.secretStore.set('clawfleet/dd/control/dashboard', { value: JSON.stringify({ DASHBOARD_TOKEN: 'd'.repeat(48) }) });
    this.secretStore.set('clawfleet/dd/agents/fran', { value: JSON.stringify({ OPENAI_API_KEY: 'sk-fran' }) });
    // Made by its stack, never set.
    this.secretStore.set('clawfleet/dd/agents/grif', {});
    // Made by `clawfleet secrets set --aws` (no stack owns it).
    this.secretStore.set('clawfleet/dd/control/hooks', { value: JSON.stringify({ HOOKS_TOKEN: 'h' }) });
    this.tables.set('dd-registry', [
      { pk: 'agent:fran', state: 'asleep' },
      { pk: 'pairing:telegram:fran:5001', status: 'approved' },
    ]);
    this.tables.set('dd-sessions', [{ pk: 'agent:fran:main', agentId: 'fran' }]);
    this.tables.set('dd-dedupe', [{ pk: 'tg.fran.1' }]);
  }

  async identity() {
    return { account: '123456789012', arn: 'arn:aws:iam::123456789012:user/ops' };
  }
  async stack(name: string) {
    const s = this.stacks.get(name);
    if (!s) return undefined;
    if (s.state.status === 'DELETE_IN_PROGRESS') {
      if (s.failDelete) s.state.status = 'DELETE_FAILED';
      else {
        this.gone(name, s);
        return undefined;
      }
    }
    return { ...s.state };
  }
  private gone(name: string, s: MemoryStack) {
    this.stacks.delete(name);
    for (const r of s.resources) {
      if (r.keptOnDelete) continue;
      if (r.type === 'AWS::SecretsManager::Secret') this.secretStore.delete(r.physicalId!.slice(4));
      if (r.type === 'AWS::DynamoDB::Table') this.tables.delete(r.physicalId!);
    }
    this.changes.push(`deleted ${name}`);
  }
  async stackNames(prefix: string) {
    return [...this.stacks.keys()].filter((n) => n.startsWith(prefix)).sort();
  }
  async stackResources(name: string) {
    return this.stacks.get(name)?.resources ?? [];
  }
  async setTerminationProtection(name: string, on: boolean) {
    this.stacks.get(name)!.state.terminationProtection = on;
    this.changes.push(`protection ${name} ${on}`);
  }
  async deleteStack(name: string) {
    const s = this.stacks.get(name)!;
    if (s.state.terminationProtection)
      throw Object.assign(new Error(`Stack [${name}] cannot be deleted while TerminationProtection is enabled`), { name: 'ValidationError' });
    s.state.status = 'DELETE_IN_PROGRESS';
  }
  async failedResources(name: string) {
    return `Staging (AWS::S3::Bucket): ${this.stacks.get(name)?.failDelete}`;
  }
  async secrets(prefix: string): Promise<SecretListing[]> {
    return [...this.secretStore.entries()].filter(([n]) => n.startsWith(prefix)).map(([name, s]) => ({ name, deletionDate: s.deletionDate }));
  }
  async secret(id: string) {
    const name = id.startsWith('arn:') ? id.slice(4) : id;
    const s = this.secretStore.get(name);
    return s ? { name, deletionDate: s.deletionDate } : undefined;
  }
  async copySecret(from: string, to: string) {
    if (this.secretStore.has(to)) return 'exists' as const;
    const value = this.secretStore.get(from)?.value;
    if (value === undefined) return 'empty' as const;
    this.secretStore.set(to, { value });
    this.changes.push(`copied ${from} to ${to}`);
    return 'copied' as const;
  }
  async scheduleSecretDeletion(id: string, days: number) {
    const at = NOW + days * DAY;
    this.secretStore.get(id)!.deletionDate = at;
    this.changes.push(`scheduled ${id}`);
    return at;
  }
  async botTokens() {
    const s = this.secretStore.get('clawfleet/dd/control/telegram');
    return s?.value && s.deletionDate === undefined ? (JSON.parse(s.value) as Record<string, string>) : {};
  }
  async agentSchedules() {
    return this.stacks.has('dd-control-plane') ? [...this.schedules] : [];
  }
  async deleteSchedule(name: string) {
    this.schedules = this.schedules.filter((s) => s !== name);
    this.changes.push(`deleted schedule ${name}`);
  }
  async exportTable(table: string, onItem: (item: Record<string, unknown>) => void) {
    const items = this.tables.get(table);
    if (!items) return 'absent' as const;
    items.forEach(onItem);
    return items.length;
  }
  async approvedPairings() {
    return this.tables.has('dd-registry') ? this.pairings : ('absent' as const);
  }
  async pullWorkspace(agentId: string, dir: string) {
    this.pulls++;
    for (const [path, text] of Object.entries(this.workspaces[agentId] ?? {})) {
      const file = join(dir, path);
      rmSync(file, { force: true });
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, text);
    }
    return Object.keys(this.workspaces[agentId] ?? {}).length;
  }
}

function setup() {
  const dir = tempDir('cf-destroy-');
  dirs.push(dir);
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify({ ...FLEET, channels: { telegram: { ...FLEET.channels!.telegram!, apiRoot: tg.url } } }));
  const account = new MemoryDestroyAccount();
  const deps = { account: async () => account, now: () => NOW, pollMs: 1, stackTimeoutMs: 60_000 };
  return { dir, out: join(dir, 'clawfleet-export-dd'), account, deps };
}

async function destroy(s: ReturnType<typeof setup>, args: string[], answers?: string[]) {
  const io = captureIO({ cwd: s.dir, ...(answers ? { answers } : {}) });
  const code = await runDestroy(args, io, s.deps).catch((err: unknown) => {
    if (!(err instanceof CliError)) throw err;
    io.err(err.message);
    return err.exitCode;
  });
  return { code, out: io.outText(), err: io.errText() };
}

const PLAN = (out: string) =>
  [
    `destroy fleet "dd" in account 123456789012, eu-west-1 (2 agent stacks and the control plane), exporting into ${out}:`,
    '  1. webhooks: deleteWebhook for the bot of "fran", so no new message arrives (Telegram keeps what it cannot deliver for 24 hours)',
    '  2. schedules: delete the 1 schedule(s) agents made themselves in clawfleet-dd (agent-fran-tidy), so none wakes an agent meanwhile',
    `  3. workspaces: pull each agent's workspace into ${out}/workspaces/<id>/ (fran, grif), as \`clawfleet workspace pull --aws\` does, the agent held asleep while it is read`,
    `  4. tables: every item of dd-registry (agents, approved pairings, relay records, metrics) and dd-sessions (each session's agent and last chat) into ${out}/tables/<table>.jsonl, and the approved pairings into ${out}/pairings.json`,
    '  5. secrets kept: their stacks delete these 4 secrets at once, without a recovery window (clawfleet/dd/control/telegram, clawfleet/dd/control/dashboard, clawfleet/dd/agents/fran, clawfleet/dd/agents/grif): each is first copied into clawfleet-destroyed/dd/2026-12-03/…, the copy scheduled for deletion with a 30-day recovery window (restorable until 2027-01-02)',
    '  6. agent stacks: delete dd-agent-fran, dd-agent-grif and wait',
    "  7. control plane: turn off dd-control-plane's termination protection (it is on, to keep a stray delete from taking the fleet down; destroy turns it off on purpose), then delete dd-control-plane and wait",
    '  8. leftover secrets: schedule the deletion of every secret clawfleet/dd/… still there once the stacks are gone (clawfleet/dd/control/hooks), with a 30-day recovery window (restorable until 2027-01-02)',
    '  ! kept by the stacks on purpose, and billed until you delete them (the commands are printed at the end): DynamoDB table dd-registry; DynamoDB table dd-sessions; EFS file system fs-0123; S3 bucket dd-staging-abc',
    '  ! deleted with the stacks and not exported: the queues with any message still in them, the log groups, the alarms, the functions and their URLs, the network',
    '  ! left alone: stack dd-agent-visitor, which clawfleet did not make for an agent of this fleet',
  ].join('\n');

describe('clawfleet destroy --plan', () => {
  it('prints every step, what is exported, kept and deleted, and changes nothing', async () => {
    const s = setup();
    const r = await destroy(s, ['--plan']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe(`${PLAN(s.out)}\nplan only: nothing was exported, changed or deleted`);
    expect(s.account.changes).toEqual([]);
    expect(existsSync(s.out)).toBe(false);
    expect(tg.calls('deleteWebhook')).toEqual([]);
    expect((await destroy(s, ['--dry-run'])).out).toBe(`${PLAN(s.out)}\nplan only: nothing was exported, changed or deleted`);
  });

  it('refuses a recovery window Secrets Manager does not have', async () => {
    const r = await destroy(setup(), ['--recovery-days', '5']);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--recovery-days must be a whole number from 7 to 30 (Secrets Manager's recovery window)");
  });
});

describe('clawfleet destroy', () => {
  it('asks for the fleet’s name, and without it (or a terminal) changes nothing', async () => {
    const s = setup();
    const wrong = await destroy(s, [], ['demo']);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toBe('not confirmed: nothing was changed');
    const noTerminal = await destroy(s, []);
    expect(noTerminal.code).toBe(2);
    expect(noTerminal.err).toBe('standard input is not a terminal to confirm on: pass --yes to destroy fleet "dd"');
    expect(s.account.changes).toEqual([]);
    expect(existsSync(s.out)).toBe(false);
  });

  it('exports, keeps the secrets for their recovery window, deletes the stacks, and lists what stays billed', async () => {
    const s = setup();
    const hooksBefore = tg.calls('deleteWebhook').length;
    const r = await destroy(s, [], ['dd']);
    expect(r.code, r.err).toBe(0);
    expect(r.out.startsWith(PLAN(s.out))).toBe(true);
    const steps = r.out.slice(PLAN(s.out).length + 1).split('\ndestroyed fleet')[0];
    expect(steps).toBe(
      [
        '  ✓ [1/8] webhooks: deleted the webhook of fran',
        '  ✓ [2/8] schedules: deleted agent-fran-tidy',
        '  ✓ [3/8] workspaces: pulled fran 2 files, grif 1 files',
        '  ✓ [4/8] tables: dd-registry 2 items, dd-sessions 1 items, 1 approved pairing(s)',
        '  ✓ [5/8] secrets kept: kept clawfleet/dd/control/telegram as clawfleet-destroyed/dd/2026-12-03/control/telegram (until 2027-01-02), clawfleet/dd/control/dashboard as clawfleet-destroyed/dd/2026-12-03/control/dashboard (until 2027-01-02), clawfleet/dd/agents/fran as clawfleet-destroyed/dd/2026-12-03/agents/fran (until 2027-01-02); no value to keep in clawfleet/dd/agents/grif',
        '  ✓ [6/8] agent stacks: deleted dd-agent-fran, dd-agent-grif',
        '  ✓ [7/8] control plane: turned off its termination protection, on purpose, for this delete; deleted dd-control-plane',
        '  ✓ [8/8] leftover secrets: scheduled clawfleet/dd/control/hooks (until 2027-01-02)',
      ].join('\n'),
    );
    expect(r.out.slice(r.out.indexOf('\ndestroyed fleet') + 1)).toBe(
      [
        `destroyed fleet "dd"; the export is in ${s.out} (destroy.json, pairings.json, tables, workspaces)`,
        'Still billed until you delete them:',
        '  - DynamoDB table dd-registry: its storage and point-in-time recovery, per GB-month',
        '      aws dynamodb update-table --table-name dd-registry --no-deletion-protection-enabled --region eu-west-1 && aws dynamodb delete-table --table-name dd-registry --region eu-west-1',
        '  - DynamoDB table dd-sessions: its storage and point-in-time recovery, per GB-month',
        '      aws dynamodb update-table --table-name dd-sessions --no-deletion-protection-enabled --region eu-west-1 && aws dynamodb delete-table --table-name dd-sessions --region eu-west-1',
        "  - EFS file system fs-0123 (every agent's workspace and the archives of removed agents), with its daily backups in aws/efs/automatic-backup-vault: its storage, per GB-month, and its backups’ for their 35 days",
        '      aws efs delete-file-system --file-system-id fs-0123 --region eu-west-1; its backups: aws backup list-recovery-points-by-resource --resource-arn arn:aws:elasticfilesystem:eu-west-1:123456789012:file-system/fs-0123 --region eu-west-1, then aws backup delete-recovery-point for each',
        '  - S3 bucket dd-staging-abc: what is left in it, per GB-month',
        '      aws s3 rb s3://dd-staging-abc --force --region eu-west-1',
        '  - the CDK bootstrap stack CDKToolkit (shared by every CDK app in this account and region): its assets bucket’s and repository’s storage',
        "      if no other CDK app uses it: aws s3 rb s3://cdk-hnb659fds-assets-123456789012-eu-west-1 --force (the default qualifier's bucket), then aws cloudformation delete-stack --stack-name CDKToolkit --region eu-west-1",
        'Secrets, deleted for good at their date unless restored:',
        '  - clawfleet/dd/control/telegram, kept as clawfleet-destroyed/dd/2026-12-03/control/telegram, until 2027-01-02: aws secretsmanager restore-secret --secret-id clawfleet-destroyed/dd/2026-12-03/control/telegram && aws secretsmanager get-secret-value --secret-id clawfleet-destroyed/dd/2026-12-03/control/telegram --query SecretString --output text',
        '  - clawfleet/dd/control/dashboard, kept as clawfleet-destroyed/dd/2026-12-03/control/dashboard, until 2027-01-02: aws secretsmanager restore-secret --secret-id clawfleet-destroyed/dd/2026-12-03/control/dashboard && aws secretsmanager get-secret-value --secret-id clawfleet-destroyed/dd/2026-12-03/control/dashboard --query SecretString --output text',
        '  - clawfleet/dd/agents/fran, kept as clawfleet-destroyed/dd/2026-12-03/agents/fran, until 2027-01-02: aws secretsmanager restore-secret --secret-id clawfleet-destroyed/dd/2026-12-03/agents/fran && aws secretsmanager get-secret-value --secret-id clawfleet-destroyed/dd/2026-12-03/agents/fran --query SecretString --output text',
        '  - clawfleet/dd/control/hooks, until 2027-01-02: aws secretsmanager restore-secret --secret-id clawfleet/dd/control/hooks && aws secretsmanager get-secret-value --secret-id clawfleet/dd/control/hooks --query SecretString --output text',
      ].join('\n'),
    );
    // The export: every table item, the approved pairing, each workspace.
    const lines = (f: string) =>
      readFileSync(join(s.out, 'tables', f), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    expect(lines('dd-registry.jsonl')).toEqual(s.account.tables.get('dd-registry'));
    expect(lines('dd-sessions.jsonl')).toEqual([{ pk: 'agent:fran:main', agentId: 'fran' }]);
    expect(JSON.parse(readFileSync(join(s.out, 'pairings.json'), 'utf8'))).toEqual([APPROVED]);
    expect(readFileSync(join(s.out, 'workspaces', 'fran', 'MEMORY.md'), 'utf8')).toBe('Ann likes tea\n');
    expect(readdirSync(join(s.out, 'workspaces')).sort()).toEqual(['fran', 'grif']);
    // Transcripts, memory and who may talk to which bot: readable by the operator alone.
    expect(statSync(s.out).mode & 0o777).toBe(0o700);
    // Done in this order; the kept tables are there, the values only in the dated copies (scheduled for deletion).
    expect(s.account.changes).toEqual([
      'deleted schedule agent-fran-tidy',
      'copied clawfleet/dd/control/telegram to clawfleet-destroyed/dd/2026-12-03/control/telegram',
      'scheduled clawfleet-destroyed/dd/2026-12-03/control/telegram',
      'copied clawfleet/dd/control/dashboard to clawfleet-destroyed/dd/2026-12-03/control/dashboard',
      'scheduled clawfleet-destroyed/dd/2026-12-03/control/dashboard',
      'copied clawfleet/dd/agents/fran to clawfleet-destroyed/dd/2026-12-03/agents/fran',
      'scheduled clawfleet-destroyed/dd/2026-12-03/agents/fran',
      'deleted dd-agent-fran',
      'deleted dd-agent-grif',
      'protection dd-control-plane false',
      'deleted dd-control-plane',
      'scheduled clawfleet/dd/control/hooks',
    ]);
    expect([...s.account.stacks.keys()]).toEqual(['dd-agent-visitor']);
    expect([...s.account.tables.keys()]).toEqual(['dd-registry', 'dd-sessions']);
    expect(s.account.secretStore.get('clawfleet-destroyed/dd/2026-12-03/agents/fran')).toEqual({
      value: JSON.stringify({ OPENAI_API_KEY: 'sk-fran' }),
      deletionDate: NOW + 30 * DAY,
    });
    expect(tg.calls('deleteWebhook').length - hooksBefore).toBe(1);
    // No secret value in what was printed or exported.
    const exported = [r.out, r.err, readFileSync(join(s.out, 'destroy.json'), 'utf8')].join('\n');
    for (const v of [BOT, 'sk-fran', 'd'.repeat(48)]) expect(exported).not.toContain(v);

    // Again: nothing is left to destroy, and what stays billed is said again.
    const again = await destroy(s, ['--yes']);
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain('nothing of fleet "dd" is left in account 123456789012, eu-west-1: nothing to destroy\ndestroyed fleet "dd"');
    expect(again.out).toContain('      aws efs delete-file-system --file-system-id fs-0123 --region eu-west-1');
  });

  it('stops at a stack that will not delete, saying why, and resumes without exporting or keeping anything twice', async () => {
    const s = setup();
    s.account.stacks.get('dd-control-plane')!.failDelete = 'The bucket you tried to delete is not empty';
    const r = await destroy(s, ['--yes']);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      [
        '  ✗ [7/8] control plane: DELETE_FAILED: dd-control-plane: Staging (AWS::S3::Bucket): The bucket you tried to delete is not empty',
        '    fix or delete those resources by hand, then run clawfleet destroy again (CloudFormation retries the delete)',
        '    not done: leftover secrets',
      ].join('\n'),
    );
    const pulls = s.account.pulls;
    // The operator empties the bucket; CloudFormation's next delete goes through.
    s.account.stacks.get('dd-control-plane')!.failDelete = undefined;
    const again = await destroy(s, ['--yes']);
    expect(again.code, again.err).toBe(0);
    // The control plane (and the Telegram secret) stayed: deleting the webhook again is harmless.
    expect(again.out).toContain('  ✓ [1/8] webhooks: deleted the webhook of fran');
    expect(again.out).toContain('  – [3/8] workspaces: nothing to pull; fran exported before (its stack is gone); grif exported before (its stack is gone)');
    expect(again.out).toContain(
      '  – [5/8] secrets kept: kept clawfleet/dd/control/telegram as clawfleet-destroyed/dd/2026-12-03/control/telegram (until 2027-01-02), clawfleet/dd/control/dashboard as clawfleet-destroyed/dd/2026-12-03/control/dashboard (until 2027-01-02), clawfleet/dd/agents/fran as clawfleet-destroyed/dd/2026-12-03/agents/fran (until 2027-01-02)',
    );
    expect(again.out).toContain('  – [6/8] agent stacks: gone already');
    expect(again.out).toContain('  ✓ [7/8] control plane: deleted dd-control-plane');
    expect(s.account.pulls).toBe(pulls);
    expect(s.account.changes.filter((c) => c.startsWith('copied'))).toHaveLength(3);
    // The tables it kept are still exported from the first run (they outlive the stack).
    expect(again.out).toContain('  ✓ [4/8] tables: dd-registry 2 items, dd-sessions 1 items, 1 approved pairing(s)');
    expect(s.account.stacks.has('dd-control-plane')).toBe(false);
  });
});
