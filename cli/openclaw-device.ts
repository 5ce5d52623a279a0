// `clawfleet openclaw device`: makes an external-mode OpenClaw agent's device key and stores
// it in the agent's own secret (OPENCLAW_DEVICE_KEY; locally the secrets file, with --aws
// Secrets Manager), so every task of the agent is one device to the operator's gateway. The
// key is never printed: the device id is, which `openclaw devices list` shows on the gateway.
import { createPrivateKey } from 'node:crypto';
import { resolve } from 'node:path';
import { agentSecretName } from '../shared/config/names.ts';
import { resolveAgent } from '../shared/config/resolve.ts';
import { deviceIdOf, newDeviceKeyPem, OPENCLAW_DEVICE_KEY, parseDeviceKey } from '../shared/secrets/openclaw-device-key.ts';
import { awsSettings } from './aws-env.ts';
import { CliError, choose, EXIT, parse, str, type Command } from './command.ts';
import { loadFleetConfig, requireAgent } from './fleet-config.ts';
import { fileSecretTarget } from './secret-targets.ts';

const HELP = `Usage: clawfleet openclaw device --agent <id> [--aws] [--replace] [--no-restart]

Makes the OpenClaw device key of an agent in runtime.openclaw.mode "external" and stores it
as ${OPENCLAW_DEVICE_KEY} in the agent's own secret clawfleet/<fleet>/agents/<id> (locally
clawfleet.secrets.json, --secrets; with --aws AWS Secrets Manager). The key is never printed;
the device id is: \`openclaw devices list\` on the gateway shows it when the agent first
connects, and \`openclaw devices approve <requestId>\` admits it, once for every task.
A key already held is kept (its device id printed) unless --replace. Storing a new key
restarts the agent, as \`clawfleet secrets set\` does. On AWS the key is required: the
runtime waits for it; locally, without it, the runtime keeps a key in its own state.

  --agent <id>       the agent (runtime.kind "openclaw", mode "external")
  --replace          make a new key even if one is held (the gateway must approve the new device)
  --no-restart       store the key only; the agent reads it when it next starts
  --config <path>    the fleet config (default clawfleet.json)
  --secrets <path>   the local secrets file (default clawfleet.secrets.json)
  --state <dir>      the running local fleet's state directory (default .clawfleet)
  --aws              use AWS Secrets Manager (credentials and AWS_REGION from the environment)`;

export const openclawCommand: Command = {
  async run(args, io) {
    const [sub, ...rest] = args;
    if (sub === '--help' || sub === '-h') return (io.out(HELP), EXIT.ok);
    choose(sub, ['device'], HELP);
    const p = parse(
      rest,
      {
        config: { type: 'string', default: 'clawfleet.json' },
        secrets: { type: 'string', default: 'clawfleet.secrets.json' },
        agent: { type: 'string' },
        aws: { type: 'boolean', default: false },
        replace: { type: 'boolean', default: false },
        'no-restart': { type: 'boolean', default: false },
        state: { type: 'string', default: '.clawfleet' },
      },
      HELP,
      io,
    );
    if (!p) return EXIT.ok;
    const config = loadFleetConfig(str(p.values.config)!, io);
    const agentId = requireAgent(config, str(p.values.agent), HELP);
    const runtime = resolveAgent(config, agentId).runtime;
    if (runtime.kind !== 'openclaw' || runtime.openclaw?.mode !== 'external') {
      throw new CliError(
        EXIT.usage,
        `agent "${agentId}" is not in runtime.kind "openclaw" mode "external": only an agent connecting to an operator's gateway has a device key (docs/runtime.md, "External mode")`,
      );
    }
    const aws = p.values.aws === true;
    // The AWS SDK loads only for --aws.
    const target = aws ? (await import('./aws-secret-target.ts')).awsSecretTarget(awsSettings(io)) : fileSecretTarget(resolve(io.cwd, str(p.values.secrets)!));
    const secretId = agentSecretName(config.fleet, agentId);
    const values = await target.read(secretId);
    const held = values[OPENCLAW_DEVICE_KEY];
    const heldKey = held ? parseDeviceKey(held) : undefined;
    if (held && !p.values.replace) {
      if (!heldKey)
        throw new CliError(
          EXIT.invalid,
          `${OPENCLAW_DEVICE_KEY} in ${secretId} (${target.where}) is not an Ed25519 private key in PKCS#8 PEM; run again with --replace to make a new one`,
        );
      io.out(`${secretId} (${target.where}) holds ${OPENCLAW_DEVICE_KEY} already: device ${deviceIdOf(heldKey)} (--replace makes a new one)`);
      return EXIT.ok;
    }
    const pem = newDeviceKeyPem();
    const deviceId = deviceIdOf(createPrivateKey(pem));
    await target.write(secretId, { ...values, [OPENCLAW_DEVICE_KEY]: pem });
    io.out(`${held ? 'replaced' : 'stored'} ${OPENCLAW_DEVICE_KEY} in ${secretId} (${target.where})`);
    io.out(`device ${deviceId}`);
    io.out(
      `when the agent connects, \`openclaw devices list\` on the gateway shows a pending request from this device: approve it with \`openclaw devices approve <requestId>\``,
    );
    if (heldKey) io.out(`the old device ${deviceIdOf(heldKey)} is no longer this agent's: \`openclaw devices remove ${deviceIdOf(heldKey)}\` on the gateway`);
    if (p.values['no-restart']) io.out(`the agent reads it when its runtime starts: clawfleet runtime restart --agent ${agentId}${aws ? ' --aws' : ''}`);
    else {
      const { restartAfterSecretSet } = await import('./secret-restart.ts');
      await restartAfterSecretSet(config.fleet, agentId, aws ? { aws: awsSettings(io) } : { stateDir: str(p.values.state)! }, io);
    }
    return EXIT.ok;
  },
};
