// `npm run smoke:aws -- --yes`: proves on a real AWS account what the emulator cannot. It
// deploys a one-agent fleet under a unique name with `clawfleet deploy`, sends a signed
// Telegram update to the deployed Function URL, waits for the agent — woken by λ compute, a
// real Fargate task from the real image, its secret read with its task role, its workspace on
// EFS through its access point — to answer into its outbox, checks the isolation matrix against
// the deployed policies with IAM's policy simulator, and then destroys everything it made
// (even when a check failed; --keep leaves it up). Without --yes it prints its plan and what a
// run costs, and stops. It cannot run on the project's machines (no account, no Docker); its
// offline parts are tested (test/unit/smoke-plan.test.ts, test/infra/smoke-isolation.test.ts).
//
//   npm run smoke:aws                 # the plan, the cost, the teardown list; nothing runs
//   npm run smoke:aws -- --yes        # run it (AWS credentials and AWS_REGION from the environment)
//   npm run smoke:aws -- --yes --model openai/gpt-4.1-mini   # key from OPENAI_API_KEY in the environment
//
// Needs: credentials allowed to deploy CloudFormation stacks (as for `clawfleet deploy`) and to
// call iam:SimulatePrincipalPolicy; Docker to build the runtime image (or --runtime-image); for
// the default model, access to Amazon Nova Micro enabled in Bedrock in that region.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { awsSettings } from '../cli/aws-env.ts';
import type { CliIO } from '../cli/command.ts';
import { runDeploy } from '../cli/deploy.ts';
import { processIO } from '../cli/main.ts';
import { agentSecretName, controlPlaneStackName, telegramSecretName } from '../shared/config/names.ts';
import { smokeConfig, smokeFleetName, runCost, teardownList, KEPT, DEFAULT_SMOKE_MODEL, SMOKE_AGENT } from './smoke/smoke-plan.ts';

const USAGE = 'usage: npm run smoke:aws -- [--yes] [--model provider/model] [--runtime-image <image>] [--keep] [--timeout-minutes 12]';

export function smokePlanText(fleet: string, model: string, region: string, minutes: number): string {
  const cost = runCost(minutes, model);
  const width = Math.max(...cost.lines.map((l) => l.item.length));
  return [
    `clawfleet smoke test on AWS (${region}): fleet "${fleet}", one agent "${SMOKE_AGENT}" on ${model}`,
    '',
    'It will:',
    `  1. clawfleet deploy --non-interactive --no-webhooks: stacks ${controlPlaneStackName(fleet)} and ${fleet}-agent-${SMOKE_AGENT}, their secret values (a made-up bot token, a generated dashboard token${model.startsWith('bedrock/') ? '' : ', the model key from the environment'})`,
    `  2. turn off the agent's outbox → λ outbox mapping, so its answer can be read from ${fleet}-outbox-${SMOKE_AGENT}.fifo (no Bot API is ever called)`,
    '  3. POST a Telegram update signed with the webhook secret token to the deployed Function URL, and wait for the answer (λ compute wakes the agent: a Fargate task starts)',
    `  4. ask IAM's policy simulator the isolation matrix for the deployed roles (the agent's, its archive task's, six functions')`,
    '  5. destroy everything it made:',
    ...teardownList(fleet).map((t, i) => `     ${String.fromCharCode(97 + i)}. ${t.what}: ${t.how}`),
    '  and keep on purpose:',
    ...KEPT.map((k) => `     - ${k}`),
    '',
    `What a run costs (about ${minutes} minutes):`,
    ...cost.lines.map((l) => `  ${l.item.padEnd(width)}  $${l.usd.toFixed(4)}`),
    `  ${'total'.padEnd(width)}  $${cost.total.toFixed(4)}  (${cost.note})`,
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  let flags;
  try {
    flags = parseArgs({
      args: argv,
      options: {
        yes: { type: 'boolean', default: false },
        model: { type: 'string', default: DEFAULT_SMOKE_MODEL },
        'runtime-image': { type: 'string' },
        keep: { type: 'boolean', default: false },
        'timeout-minutes': { type: 'string', default: '12' },
      },
    }).values;
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const io = processIO();
  const aws = awsSettings(io);
  const fleet = smokeFleetName();
  const model = flags.model!;
  const minutes = Number(flags['timeout-minutes']);
  if (!/^[a-z][a-z0-9-]*\/\S+$/.test(model) || !Number.isFinite(minutes) || minutes < 3) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  // Deploying takes about 15 minutes the first time, the teardown about 10: the run lasts about this long.
  io.out(smokePlanText(fleet, model, aws.region, minutes + 25));
  if (!flags.yes) {
    io.err('\nNot run: nothing was made and no AWS call was made. Run it with --yes.');
    return 2;
  }

  // Before anything is made: what the run needs from this machine.
  const config = smokeConfig(fleet, model);
  const keyName = Object.values(config.models.providers)[0]?.apiKeySecret;
  const key = keyName ? process.env[keyName] : undefined;
  if (keyName && !key) return (io.err(`${model} needs its key in the environment as ${keyName}; nothing was made`), 1);
  if (!flags['runtime-image']) {
    try {
      execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 20_000 });
    } catch {
      return (
        io.err(
          'cdk deploy builds the runtime image with Docker, which does not answer here (docker info); start it, or pass --runtime-image <a registry image of runtime-image/>. Nothing was made',
        ),
        1
      );
    }
  }

  const dir = mkdtempSync(join(tmpdir(), `${fleet}-`));
  const configFile = join(dir, 'clawfleet.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const botToken = `${1_000_000_000 + randomBytes(3).readUIntBE(0, 3)}:${randomBytes(24).toString('base64url')}`;
  const values = JSON.stringify({
    [telegramSecretName(fleet)]: { SMOKE_BOT_TOKEN: botToken },
    ...(keyName && key ? { [agentSecretName(fleet, SMOKE_AGENT)]: { [keyName]: key } } : {}),
  });
  const deployIO: CliIO = { ...io, readStdin: async () => values, prompt: undefined, cwd: dir };

  const { fileSystemOf, awsTeardown, runTeardown } = await import('./smoke/smoke-teardown.ts');
  const probe = await import('./smoke/probe.ts');
  let fileSystemId: string | undefined;
  const failures: string[] = [];
  const t0 = Date.now();
  const phase = (n: number, what: string) => io.out(`\n[${n}/5] ${what} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
  try {
    phase(1, 'deploy');
    const code = await runDeploy(
      [
        '--config',
        configFile,
        '--non-interactive',
        '--no-webhooks',
        '--secrets-file',
        '-',
        '--outputs-file',
        join(dir, 'cdk-outputs.json'),
        ...(flags['runtime-image'] ? ['--context', `runtimeImage=${flags['runtime-image']}`] : []),
      ],
      deployIO,
    );
    fileSystemId = await fileSystemOf(fleet, aws).catch(() => undefined);
    if (code !== 0) throw new Error(`clawfleet deploy exited ${code}`);
    const outputs = JSON.parse(readFileSync(join(dir, 'cdk-outputs.json'), 'utf8')) as Record<string, Record<string, string>>;
    const { STSClient, GetCallerIdentityCommand } = await import('@aws-sdk/client-sts');
    const account = (await new STSClient(aws).send(new GetCallerIdentityCommand({}))).Account!;

    phase(2, 'hold the outbox');
    await probe.holdOutbox(fleet, aws, account);

    phase(3, 'a signed Telegram update to the deployed webhook, and the answer');
    const inbound = await probe.sendUpdate(fleet, outputs[controlPlaneStackName(fleet)] ?? {}, botToken, 'Smoke test: answer with one short sentence.');
    io.out(`  queued as ${inbound}`);
    try {
      const reply = await probe.awaitReply(fleet, aws, inbound, minutes * 60_000, (l) => io.out(l));
      io.out(`  answered after ${(reply.replyMs / 1000).toFixed(0)} s: "${reply.text.slice(0, 200)}"`);
    } catch (err) {
      failures.push((err as Error).message);
    }

    phase(4, 'the isolation matrix against the deployed policies (IAM SimulatePrincipalPolicy)');
    if (!fileSystemId) throw new Error('the control plane has no file system resource');
    const { resources, roles } = await probe.deployedResources(fleet, aws, account, fileSystemId, model);
    const cases = probe.isolationCases(resources);
    const wrong = await probe.simulate(cases, roles, aws);
    io.out(`  ${cases.length - wrong.length} of ${cases.length} cases as designed`);
    for (const w of wrong) io.out(`  ✗ ${w}`);
    if (wrong.length) failures.push(`${wrong.length} isolation case(s) differ`);
  } catch (err) {
    failures.push((err as Error).message);
    io.err(`  ✗ ${(err as Error).message}`);
  } finally {
    if (flags.keep) io.out(`\n[5/5] kept (--keep): delete it later with the steps above; the file system is ${fileSystemId ?? 'unknown'}`);
    else {
      phase(5, 'teardown');
      if (
        !(await runTeardown(
          awsTeardown(fleet, aws, () => fileSystemId),
          (l) => io.out(l),
        ))
      )
        failures.push('the teardown left things behind (listed above)');
    }
  }
  io.out(
    failures.length
      ? `\nSMOKE TEST FAILED (${((Date.now() - t0) / 60_000).toFixed(1)} min):\n${failures.map((f) => `  - ${f}`).join('\n')}`
      : `\nsmoke test passed in ${((Date.now() - t0) / 60_000).toFixed(1)} min`,
  );
  return failures.length ? 1 : 0;
}

// Run as a script (not when a test imports smokePlanText).
if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => (process.stderr.write(`smoke:aws: ${(err as Error).stack}\n`), process.exit(1)),
  );
}
