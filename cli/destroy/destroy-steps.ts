// `clawfleet destroy`, as steps over a DestroyAccount: first the plan (what is deployed, what
// each stack keeps on purpose, which secrets their stacks would delete at once), then eight
// steps — webhooks, schedules, workspaces, tables, secrets kept, agent stacks, control plane,
// leftover secrets — each saying what it did, each finding on a second run what is done. The
// plan is saved in the export folder (destroy.json), so a run after the stacks are gone still
// knows what they left and where each secret was kept.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentStackName, controlPlaneStackName, scheduleGroupName, tableNames } from '../../shared/config/names.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { keptSecretName, madeForAgent, recoveryEnds, type KeptResource } from '../../shared/deploy/teardown.ts';
import { StepFailed, type Step, type StepResult } from '../steps.ts';
import type { DestroyAccount, StackState } from './account.ts';

/** A secret of the fleet and what becomes of it. */
export interface FleetSecret {
  name: string;
  /** The stack it is in; undefined for one no stack owns (made by `clawfleet secrets set --aws`). */
  stack: string | undefined;
  /** Its stack deletes it at once, without a recovery window: destroy keeps a copy. */
  deletedWithStack: boolean;
}

/** What destroy found, and keeps in destroy.json so a resumed run knows what the deleted stacks left. */
export interface DestroyState {
  fleet: string;
  account: string;
  region: string;
  /** The day the first run started: the kept secrets' names carry it, so a run resumed later finds them. */
  startedAt: number;
  kept: KeptResource[];
  secrets: FleetSecret[];
  /** The agents whose workspaces are exported. */
  agents: string[];
}

export interface DestroyPlan {
  state: DestroyState;
  identity: { account: string; arn: string };
  controlPlane: StackState | undefined;
  agentStacks: { agentId: string; name: string }[];
  /** Stacks named like the fleet's agent stacks that clawfleet did not make: left alone. */
  foreign: string[];
  agentSchedules: string[];
  botAccounts: string[];
  /** The fleet's secrets (clawfleet/<fleet>/…) with no deletion scheduled. */
  liveSecrets: string[];
  /** An earlier run saved its plan in the export folder. */
  resumed: boolean;
}

export interface DestroyOptions {
  outDir: string;
  recoveryDays: number;
  /** false with --no-webhooks. */
  telegramCalls: boolean;
  now(): number;
  pollMs: number;
  stackTimeoutMs: number;
  /** Progress of the workspace pulls (standard error). */
  say(line: string): void;
}

const STATE_FILE = 'destroy.json';
/** An agent id as the config allows it: what names a folder of the export. */
const AGENT_ID = /^[a-z][a-z0-9-]{0,23}$/;
const SECRET = 'AWS::SecretsManager::Secret';

/** Reads what is deployed of the fleet, what its stacks keep, and its secrets; merged with what an earlier run saved. */
export async function readPlan(config: FleetConfig, account: DestroyAccount, opts: DestroyOptions): Promise<DestroyPlan> {
  const fleet = config.fleet;
  const identity = await account.identity();
  const saved = readState(opts.outDir);
  if (saved && (saved.fleet !== fleet || saved.account !== identity.account || saved.region !== account.region))
    throw new StepFailed(
      `${join(opts.outDir, STATE_FILE)} is the export of fleet "${saved.fleet}" in account ${saved.account}, ${saved.region}`,
      'give another --out for this fleet and account',
    );
  const controlPlane = await account.stack(controlPlaneStackName(fleet));
  const prefix = `${fleet}-agent-`;
  const agentStacks: DestroyPlan['agentStacks'] = [];
  const foreign: string[] = [];
  for (const name of await account.stackNames(prefix)) {
    const agentId = name.slice(prefix.length);
    const stack = AGENT_ID.test(agentId) ? await account.stack(name) : undefined;
    if (stack && madeForAgent(fleet, agentId, stack)) agentStacks.push({ agentId, name });
    else foreign.push(name);
  }
  const kept: KeptResource[] = [...(saved?.kept ?? [])];
  const secrets: FleetSecret[] = [...(saved?.secrets ?? [])];
  for (const stack of [...(controlPlane ? [controlPlane.name] : []), ...agentStacks.map((s) => s.name)]) {
    for (const r of await account.stackResources(stack)) {
      if (!r.physicalId) continue;
      if (r.type === SECRET) {
        const name = (await account.secret(r.physicalId))?.name;
        if (name && !secrets.some((s) => s.name === name)) secrets.push({ name, stack, deletedWithStack: !r.keptOnDelete });
      } else if (r.keptOnDelete && !kept.some((k) => k.stack === stack && k.logicalId === r.logicalId))
        kept.push({ stack, logicalId: r.logicalId, type: r.type, physicalId: r.physicalId });
    }
  }
  const listed = await account.secrets(`clawfleet/${fleet}/`);
  for (const s of listed) if (!secrets.some((x) => x.name === s.name)) secrets.push({ name: s.name, stack: undefined, deletedWithStack: false });
  const agents = [...new Set([...(saved?.agents ?? []), ...agentStacks.map((s) => s.agentId)])].sort();
  return {
    state: { fleet, account: identity.account, region: account.region, startedAt: saved?.startedAt ?? opts.now(), kept, secrets, agents },
    identity,
    controlPlane,
    agentStacks,
    foreign,
    agentSchedules: await account.agentSchedules(),
    botAccounts: Object.keys(config.channels.telegram?.accounts ?? {}),
    liveSecrets: listed.filter((s) => s.deletionDate === undefined).map((s) => s.name),
    resumed: saved !== undefined,
  };
}

function readState(dir: string): DestroyState | undefined {
  const file = join(dir, STATE_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DestroyState) : undefined;
}

/** Saved once the operator has said yes, before the first step: what a resumed run needs. */
export function saveState(dir: string, state: DestroyState): void {
  // Transcripts, memory and who may talk to which bot: the operator's alone to read.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeAtomically(join(dir, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
}

function writeAtomically(file: string, text: string): void {
  writeFileSync(`${file}.partial`, text, { mode: 0o600 });
  renameSync(`${file}.partial`, file);
}

const list = (xs: string[], none = 'none') => (xs.length ? xs.join(', ') : none);

export function destroySteps(config: FleetConfig, account: DestroyAccount, plan: DestroyPlan, opts: DestroyOptions): Step[] {
  const fleet = config.fleet;
  const { state } = plan;
  const tables = tableNames(fleet);
  const until = recoveryEnds(opts.now(), opts.recoveryDays);
  const toKeep = state.secrets.filter((s) => s.deletedWithStack);
  const telegram = config.channels.telegram;
  const cp = controlPlaneStackName(fleet);

  return [
    {
      name: 'webhooks',
      plan: !plan.botAccounts.length
        ? 'none: the config has no Telegram accounts'
        : !opts.telegramCalls
          ? '--no-webhooks: the bots are left as they are'
          : `deleteWebhook for the bot of ${plan.botAccounts.map((a) => `"${a}"`).join(', ')}, so no new message arrives (Telegram keeps what it cannot deliver for 24 hours)`,
      async run(): Promise<StepResult> {
        if (!telegram || !plan.botAccounts.length) return { status: 'skipped', detail: 'no Telegram accounts in the config' };
        if (!opts.telegramCalls) return { status: 'skipped', detail: '--no-webhooks: the bots are left as they are' };
        const tokens = await account.botTokens();
        const { createBotApi } = await import('../../shared/adapters/telegram/bot-api.ts');
        const done: string[] = [];
        const noToken: string[] = [];
        for (const id of plan.botAccounts) {
          const token = tokens[telegram.accounts[id]!.botTokenSecret];
          if (!token) {
            noToken.push(id);
            continue;
          }
          await createBotApi({ apiRoot: telegram.apiRoot, token })
            .call('deleteWebhook', { drop_pending_updates: false })
            .catch((err: Error) => {
              throw new StepFailed(
                `deleteWebhook for "${id}" failed: ${err.message}`,
                'check the network reaches the Bot API, then run clawfleet destroy again',
              );
            });
          done.push(id);
        }
        const missing = noToken.length
          ? `no bot token to call with for ${noToken.join(', ')} (its secret is gone or empty): delete its webhook with the bot's token, https://api.telegram.org/bot<token>/deleteWebhook`
          : '';
        return {
          status: done.length ? 'done' : 'skipped',
          detail: [done.length ? `deleted the webhook of ${done.join(', ')}` : '', missing].filter(Boolean).join('; '),
        };
      },
    },
    {
      name: 'schedules',
      plan: plan.agentSchedules.length
        ? `delete the ${plan.agentSchedules.length} schedule(s) agents made themselves in ${scheduleGroupName(fleet)} (${plan.agentSchedules.join(', ')}), so none wakes an agent meanwhile`
        : `none: agents made no schedule of their own in ${scheduleGroupName(fleet)} (the config's go with the agents' stacks)`,
      async run(): Promise<StepResult> {
        const names = await account.agentSchedules();
        for (const name of names) await account.deleteSchedule(name);
        return names.length ? { status: 'done', detail: `deleted ${names.join(', ')}` } : { status: 'skipped', detail: 'none left' };
      },
    },
    {
      name: 'workspaces',
      plan: state.agents.length
        ? `pull each agent's workspace into ${join(opts.outDir, 'workspaces')}/<id>/ (${state.agents.join(', ')}), as \`clawfleet workspace pull --aws\` does, the agent held asleep while it is read`
        : 'none: no agent stack is deployed',
      async run(): Promise<StepResult> {
        const done: string[] = [];
        const notes: string[] = [];
        for (const agentId of state.agents) {
          const dir = join(opts.outDir, 'workspaces', agentId);
          if (!(await account.stack(agentStackName(fleet, agentId)))) {
            notes.push(existsSync(dir) ? `${agentId} exported before (its stack is gone)` : `${agentId} not exported: its stack was gone before this run`);
            continue;
          }
          try {
            done.push(`${agentId} ${await account.pullWorkspace(agentId, dir, opts.say)} files`);
          } catch (err) {
            throw new StepFailed(
              `the workspace of ${agentId} could not be pulled: ${(err as Error).message}`,
              'fix what it says (`clawfleet workspace pull --agent <id> <dir> --aws --hibernate` is the same pull), then run clawfleet destroy again: what arrived is not sent again',
            );
          }
        }
        return { status: done.length ? 'done' : 'skipped', detail: [done.length ? `pulled ${done.join(', ')}` : 'nothing to pull', ...notes].join('; ') };
      },
    },
    {
      name: 'tables',
      plan: `every item of ${tables.registry} (agents, approved pairings, relay records, metrics) and ${tables.sessions} (each session's agent and last chat) into ${join(opts.outDir, 'tables')}/<table>.jsonl, and the approved pairings into ${join(opts.outDir, 'pairings.json')}`,
      async run(): Promise<StepResult> {
        const dir = join(opts.outDir, 'tables');
        mkdirSync(dir, { recursive: true });
        const said: string[] = [];
        for (const table of [tables.registry, tables.sessions]) {
          const lines: string[] = [];
          const n = await account.exportTable(table, (item) => lines.push(JSON.stringify(item)));
          const file = join(dir, `${table}.jsonl`);
          if (n === 'absent') said.push(existsSync(file) ? `${table} exported before (the table is gone)` : `${table} not exported: the table is gone`);
          else {
            writeAtomically(file, lines.map((l) => `${l}\n`).join(''));
            said.push(`${table} ${n} items`);
          }
        }
        const pairings = await account.approvedPairings();
        if (pairings !== 'absent') {
          writeAtomically(join(opts.outDir, 'pairings.json'), `${JSON.stringify(pairings, null, 2)}\n`);
          said.push(`${pairings.length} approved pairing(s)`);
        }
        return { status: 'done', detail: said.join(', ') };
      },
    },
    {
      name: 'secrets kept',
      plan: toKeep.length
        ? `their stacks delete ${toKeep.length === 1 ? 'this secret' : `these ${toKeep.length} secrets`} at once, without a recovery window (${list(toKeep.map((s) => s.name))}): each is first copied into ${keptSecretName(fleet, `clawfleet/${fleet}/…`, state.startedAt)}, the copy scheduled for deletion with a ${opts.recoveryDays}-day recovery window (restorable until ${until})`
        : 'none: no stack deletes a secret of the fleet at once',
      async run(): Promise<StepResult> {
        const kept: string[] = [];
        const empty: string[] = [];
        let copied = 0;
        for (const s of toKeep) {
          const copy = keptSecretName(fleet, s.name, state.startedAt);
          const existing = await account.secret(copy);
          if (existing?.deletionDate !== undefined) {
            kept.push(`${s.name} as ${copy} (until ${new Date(existing.deletionDate).toISOString().slice(0, 10)})`);
            continue;
          }
          if (!(await account.secret(s.name))) continue; // gone with its stack in an earlier run: kept then, or never set
          const made = await account.copySecret(s.name, copy, `clawfleet destroy kept ${s.name} of fleet ${fleet} for its recovery window`);
          if (made === 'empty') {
            empty.push(s.name);
            continue;
          }
          const at = await account.scheduleSecretDeletion(copy, opts.recoveryDays);
          kept.push(`${s.name} as ${copy} (until ${new Date(at).toISOString().slice(0, 10)})`);
          copied++;
        }
        const parts = [kept.length ? `kept ${kept.join(', ')}` : '', empty.length ? `no value to keep in ${empty.join(', ')}` : ''].filter(Boolean);
        return { status: copied ? 'done' : 'skipped', detail: parts.join('; ') || 'nothing to keep' };
      },
    },
    {
      name: 'agent stacks',
      plan: plan.agentStacks.length ? `delete ${plan.agentStacks.map((s) => s.name).join(', ')} and wait` : 'none deployed',
      async run(): Promise<StepResult> {
        const names = plan.agentStacks.map((s) => s.name);
        const deleted = await deleteStacks(account, names, opts);
        return deleted.length ? { status: 'done', detail: `deleted ${deleted.join(', ')}` } : { status: 'skipped', detail: 'gone already' };
      },
    },
    {
      name: 'control plane',
      plan: plan.controlPlane
        ? `${plan.controlPlane.terminationProtection ? `turn off ${cp}'s termination protection (it is on, to keep a stray delete from taking the fleet down; destroy turns it off on purpose), then ` : ''}delete ${cp} and wait`
        : `none: ${cp} is not deployed`,
      async run(): Promise<StepResult> {
        const stack = await account.stack(cp);
        if (!stack) return { status: 'skipped', detail: `${cp} is gone already` };
        const said: string[] = [];
        if (stack.terminationProtection) {
          await account.setTerminationProtection(cp, false);
          said.push(`turned off its termination protection, on purpose, for this delete`);
        }
        await deleteStacks(account, [cp], opts);
        return { status: 'done', detail: [...said, `deleted ${cp}`].join('; ') };
      },
    },
    {
      name: 'leftover secrets',
      plan: `schedule the deletion of every secret clawfleet/${fleet}/… still there once the stacks are gone (${list(
        state.secrets.filter((s) => !s.deletedWithStack).map((s) => s.name),
        'none now',
      )}), with a ${opts.recoveryDays}-day recovery window (restorable until ${until})`,
      async run(): Promise<StepResult> {
        const left = await account.secrets(`clawfleet/${fleet}/`);
        const scheduled: string[] = [];
        const before: string[] = [];
        for (const s of left) {
          if (s.deletionDate !== undefined) {
            before.push(`${s.name} (until ${new Date(s.deletionDate).toISOString().slice(0, 10)})`);
            continue;
          }
          const at = await account.scheduleSecretDeletion(s.name, opts.recoveryDays);
          scheduled.push(`${s.name} (until ${new Date(at).toISOString().slice(0, 10)})`);
        }
        const parts = [scheduled.length ? `scheduled ${scheduled.join(', ')}` : '', before.length ? `scheduled before: ${before.join(', ')}` : ''].filter(
          Boolean,
        );
        return { status: scheduled.length ? 'done' : 'skipped', detail: parts.join('; ') || 'none left' };
      },
    },
  ];
}

/** Deletes the stacks (all asked at once) and waits until each is gone; the names of those it deleted. */
async function deleteStacks(account: DestroyAccount, names: string[], opts: DestroyOptions): Promise<string[]> {
  const present: string[] = [];
  for (const name of names) {
    const s = await account.stack(name);
    if (!s) continue;
    if (/_IN_PROGRESS$/.test(s.status) && s.status !== 'DELETE_IN_PROGRESS')
      throw new StepFailed(`${name} is ${s.status}`, 'wait until CloudFormation has finished with it, then run clawfleet destroy again');
    present.push(name);
  }
  for (const name of present) await account.deleteStack(name);
  const deadline = opts.now() + opts.stackTimeoutMs;
  for (let waiting = present; waiting.length; ) {
    const states = await Promise.all(waiting.map(async (name) => [name, await account.stack(name)] as const));
    const failed = states.filter(([, s]) => s?.status === 'DELETE_FAILED');
    if (failed.length) {
      const why = await Promise.all(failed.map(async ([name]) => `${name}: ${await account.failedResources(name)}`));
      throw new StepFailed(
        `DELETE_FAILED: ${why.join('; ')}`,
        'fix or delete those resources by hand, then run clawfleet destroy again (CloudFormation retries the delete)',
      );
    }
    waiting = states.filter(([, s]) => s !== undefined).map(([name]) => name);
    if (!waiting.length) break;
    if (opts.now() > deadline)
      throw new StepFailed(
        `still deleting after ${Math.round(opts.stackTimeoutMs / 60_000)} min: ${waiting.join(', ')}`,
        'watch them in the CloudFormation console; run clawfleet destroy again once they are gone',
      );
    await new Promise((r) => setTimeout(r, opts.pollMs));
  }
  return present;
}

/** What is in the export folder, for the last line. */
export function exportContents(dir: string): string {
  return existsSync(dir) ? readdirSync(dir).sort().join(', ') : 'nothing';
}
