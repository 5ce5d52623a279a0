// An external-mode OpenClaw agent's device key kept in its own secret (OPENCLAW_DEVICE_KEY):
// read from the secret value as the same device every time, a malformed value a clear error
// (and a wait on AWS) that never quotes it, required on AWS only, masked in log lines, made
// by `clawfleet deploy` and `clawfleet openclaw device` (the device id said, the key never),
// and the external mode's own task size and image stage.
import { createPrivateKey, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { collectValues } from '../../cli/deploy/values.ts';
import { deviceAuthPayload, deviceIdentityFromSecret } from '../../runtime-image/src/openclaw/device-identity.ts';
import { missingSecrets, waitingWarning } from '../../runtime-image/src/secrets/secret-wait.ts';
import { imageVariantFor } from '../../shared/config/image-variant.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { agentSecretName } from '../../shared/config/names.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import { kindSizeProblem, runtimeNeeds } from '../../shared/config/runtime-kinds.ts';
import { ClawfleetError, ConfigError } from '../../shared/errors.ts';
import { createLogger, Redactor } from '../../shared/log.ts';
import { secretsNeeded } from '../../shared/secrets/agent-secrets.ts';
import { fleetSecretNeeds } from '../../shared/secrets/fleet-secrets.ts';
import { deviceIdOf, deviceKeyProblem, deviceKeyRedactions, newDeviceKeyPem, OPENCLAW_DEVICE_KEY } from '../../shared/secrets/openclaw-device-key.ts';
import { captureIO } from './cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const EXTERNAL = { mode: 'external', url: 'wss://gw.example:18789', tokenSecret: 'OPENCLAW_GATEWAY_TOKEN', agent: 'main' };

function demo(openclaw: Record<string, unknown> = EXTERNAL, size = { cpus: 0.25, memoryMb: 512 }): any {
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  config.agents.list[1].runtime = { kind: 'openclaw', ...size, openclaw };
  return config;
}

const fran = (raw: unknown) => runtimeConfigFor(parseConfig(raw), 'fran');
const bodyOf = (pem: string) => pem.split('\n').find((l) => l && !l.startsWith('-----'))!;

const MALFORMED: [string, string][] = [
  ['an RSA key', generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string],
  ['an Ed25519 public key', createPublicKey(createPrivateKey(newDeviceKeyPem())).export({ type: 'spki', format: 'pem' }) as string],
  ['a truncated PEM', newDeviceKeyPem().slice(0, 60)],
  ['a token pasted by mistake', 'sk-not-a-key-0123456789abcdefghijklmnop'],
  ['an Ed25519 key as DER base64', bodyOf(newDeviceKeyPem())],
];

describe('the device key from the agent’s secret', () => {
  it('is the same device whenever it is read, and signs OpenClaw’s v3 payload with that key', () => {
    const pem = newDeviceKeyPem();
    const a = deviceIdentityFromSecret(pem, OPENCLAW_DEVICE_KEY, 'clawfleet openclaw device --agent fran --aws --replace');
    const b = deviceIdentityFromSecret(pem, OPENCLAW_DEVICE_KEY, 'x');
    expect(a.deviceId).toBe(b.deviceId);
    expect(a.deviceId).toBe(deviceIdOf(createPrivateKey(pem)));
    expect(a.deviceId).toMatch(/^[0-9a-f]{64}$/);
    const payload = deviceAuthPayload(a.deviceId, {
      clientId: 'gateway-client',
      clientMode: 'backend',
      role: 'operator',
      scopes: ['operator.read'],
      signedAtMs: 1,
      token: 't',
      nonce: 'n',
      platform: 'linux',
    });
    expect(verify(null, Buffer.from(payload), createPublicKey(createPrivateKey(pem)), Buffer.from(a.sign(payload), 'base64url'))).toBe(true);
    // Another key is another device.
    expect(deviceIdentityFromSecret(newDeviceKeyPem(), OPENCLAW_DEVICE_KEY, 'x').deviceId).not.toBe(a.deviceId);
  });

  it('refuses a malformed value with a clear error that names it and how to make one, never quoting it', () => {
    for (const [what, value] of MALFORMED) {
      let err: unknown;
      try {
        deviceIdentityFromSecret(value, OPENCLAW_DEVICE_KEY, 'clawfleet openclaw device --agent fran --aws --replace');
      } catch (e) {
        err = e;
      }
      expect(err, what).toBeInstanceOf(ClawfleetError);
      expect((err as ClawfleetError).code).toBe('OPENCLAW_DEVICE_KEY_INVALID');
      expect((err as Error).message).toBe(
        "OPENCLAW_DEVICE_KEY in the agent's secret is not an Ed25519 private key in PKCS#8 PEM (-----BEGIN PRIVATE KEY-----); make a new one with: clawfleet openclaw device --agent fran --aws --replace",
      );
      for (const line of value.split('\n').filter((l) => l.length >= 8 && !l.startsWith('-----'))) expect((err as Error).message).not.toContain(line);
      expect(deviceKeyProblem(value), what).toBeDefined();
    }
    expect(deviceKeyProblem(newDeviceKeyPem())).toBeUndefined();
  });
});

describe('which secret values an external agent needs', () => {
  it('needs the device key on AWS only, made not typed; managed mode and native never', () => {
    const names = (raw: unknown, placement: 'aws' | 'local') => secretsNeeded(fran(raw), { modelKeys: true, placement }).map((n) => n.name);
    expect(names(demo(), 'aws')).toEqual(expect.arrayContaining(['OPENCLAW_GATEWAY_TOKEN', OPENCLAW_DEVICE_KEY]));
    expect(names(demo(), 'local')).not.toContain(OPENCLAW_DEVICE_KEY);
    expect(names(demo({ mode: 'managed' }, { cpus: 1, memoryMb: 2048 }), 'aws')).not.toContain(OPENCLAW_DEVICE_KEY);
    const key = secretsNeeded(fran(demo()), { modelKeys: true, placement: 'aws' }).find((n) => n.name === OPENCLAW_DEVICE_KEY);
    expect(key).toMatchObject({ generated: true, form: 'openclaw-device-key' });
    // What `clawfleet deploy` and `secrets list --aws` expect of fran's secret.
    const config = parseConfig(demo());
    const need = fleetSecretNeeds(config).find((n) => n.secretId === agentSecretName(config.fleet, 'fran'))!;
    expect(need.values.map((v) => v.name)).toContain(OPENCLAW_DEVICE_KEY);
    expect(
      fleetSecretNeeds(config, 'local')
        .find((n) => n.agentId === 'fran')!
        .values.map((v) => v.name),
    ).not.toContain(OPENCLAW_DEVICE_KEY);
  });

  it('counts a malformed device key as missing on AWS (the runtime waits, saying why), never quoting it', () => {
    const config = fran(demo());
    const token = { OPENCLAW_GATEWAY_TOKEN: 'gw-token-0123456789abcdef' };
    expect(missingSecrets(config, { ...token }, { modelKeys: false, placement: 'aws' })).toEqual([
      { name: OPENCLAW_DEVICE_KEY, usedBy: "the agent's OpenClaw device key (clawfleet openclaw device)" },
    ]);
    expect(missingSecrets(config, { ...token, [OPENCLAW_DEVICE_KEY]: newDeviceKeyPem() }, { modelKeys: false, placement: 'aws' })).toEqual([]);
    for (const [what, value] of MALFORMED) {
      const missing = missingSecrets(config, { ...token, [OPENCLAW_DEVICE_KEY]: value }, { modelKeys: false, placement: 'aws' });
      expect(missing, what).toEqual([
        {
          name: OPENCLAW_DEVICE_KEY,
          usedBy:
            "the agent's OpenClaw device key (clawfleet openclaw device): the value held is not an Ed25519 private key in PKCS#8 PEM (-----BEGIN PRIVATE KEY-----)",
        },
      ]);
      const warning = waitingWarning('clawfleet/demo/agents/fran', missing, 'clawfleet openclaw device --agent fran --aws');
      for (const line of value.split('\n').filter((l) => l.length >= 8 && !l.startsWith('-----'))) expect(warning).not.toContain(line);
    }
    // Locally a malformed value is not awaited (the runtime refuses it when it starts: the error above).
    expect(missingSecrets(config, { ...token, [OPENCLAW_DEVICE_KEY]: 'junk' }, { modelKeys: false })).toEqual([]);
  });
});

describe('the redactor and a device key', () => {
  it('masks the key in a JSON log line, where its newlines are escaped and only its body line appears', () => {
    const pem = newDeviceKeyPem();
    const redactor = new Redactor();
    redactor.add(...deviceKeyRedactions(pem));
    const lines: string[] = [];
    const log = createLogger(
      {},
      (l) => lines.push(l),
      redactor,
      () => 0,
    );
    log.error('boom', { error: `could not parse ${pem}`, body: bodyOf(pem) });
    expect(lines[0]).not.toContain(bodyOf(pem));
    expect(lines[0]).toContain('[redacted]');
    // Without the body line, the whole PEM alone would not have matched the escaped JSON.
    const naive = new Redactor();
    naive.add(pem);
    expect(naive.redact(JSON.stringify({ e: pem }))).toContain(bodyOf(pem));
  });
});

describe('clawfleet deploy’s secrets step', () => {
  it('makes an external agent’s device key (never asks for a PEM on the terminal) and says its device id, not the key', async () => {
    const config = parseConfig(demo());
    const needs = fleetSecretNeeds(config).filter((n) => n.agentId === 'fran');
    const asked: string[] = [];
    const got = await collectValues(needs, new Map(), {
      prompt: async (q) => (asked.push(q), ''),
    });
    const pem = got.values.get(agentSecretName(config.fleet, 'fran'))![OPENCLAW_DEVICE_KEY]!;
    expect(deviceKeyProblem(pem)).toBeUndefined();
    expect(asked.some((q) => q.includes(OPENCLAW_DEVICE_KEY))).toBe(false);
    const said = got.said.find((s) => s.startsWith(OPENCLAW_DEVICE_KEY))!;
    expect(said).toContain(`device ${deviceIdOf(createPrivateKey(pem))}`);
    expect(got.said.join('\n')).not.toContain(bodyOf(pem));
    // A key given in the secrets file is taken as given.
    const given = newDeviceKeyPem();
    const fromFile = await collectValues(needs, new Map(), { file: { [agentSecretName(config.fleet, 'fran')]: { [OPENCLAW_DEVICE_KEY]: given } } });
    expect(fromFile.values.get(agentSecretName(config.fleet, 'fran'))![OPENCLAW_DEVICE_KEY]).toBe(given);
  });
});

describe('clawfleet openclaw device (the local secrets file)', () => {
  const setup = (raw = demo()) => {
    const dir = tempDir('cf-device-cli-');
    writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(raw));
    const run = async (...argv: string[]) => {
      const io = captureIO({ cwd: dir });
      const code = await runCli(['openclaw', 'device', ...argv, '--no-restart'], io);
      return { code, out: io.outText(), err: io.errText() };
    };
    const held = () => JSON.parse(readFileSync(join(dir, 'clawfleet.secrets.json'), 'utf8'))[agentSecretName(parseConfig(raw).fleet, 'fran')];
    return { dir, run, held };
  };

  it('stores a key, prints its device id and never the key, keeps it on a second run, replaces it on --replace', async () => {
    const { run, held } = setup();
    const first = await run('--agent', 'fran');
    expect(first.code).toBe(0);
    const pem = held()[OPENCLAW_DEVICE_KEY] as string;
    const id = deviceIdOf(createPrivateKey(pem));
    expect(first.out).toContain(`device ${id}`);
    expect(first.out).toContain('openclaw devices approve <requestId>');
    expect(first.out + first.err).not.toContain(bodyOf(pem));
    const again = await run('--agent', 'fran');
    expect(again.out).toContain(`holds ${OPENCLAW_DEVICE_KEY} already: device ${id}`);
    expect(held()[OPENCLAW_DEVICE_KEY]).toBe(pem);
    const replaced = await run('--agent', 'fran', '--replace');
    expect(replaced.code).toBe(0);
    expect(held()[OPENCLAW_DEVICE_KEY]).not.toBe(pem);
    expect(replaced.out).toContain(`openclaw devices remove ${id}`);
  });

  it('refuses an agent that is not in external mode, and a malformed held value without --replace (never quoting it)', async () => {
    const managed = setup(demo({ mode: 'managed' }, { cpus: 1, memoryMb: 2048 }));
    const r = await managed.run('--agent', 'fran');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/is not in runtime.kind "openclaw" mode "external"/);
    const { dir, run } = setup();
    const junk = 'sk-junk-value-0123456789abcdef';
    writeFileSync(join(dir, 'clawfleet.secrets.json'), JSON.stringify({ [agentSecretName('demo', 'fran')]: { [OPENCLAW_DEVICE_KEY]: junk } }));
    const bad = await run('--agent', 'fran');
    expect(bad.code).toBe(3);
    expect(bad.err).toMatch(/is not an Ed25519 private key in PKCS#8 PEM; run again with --replace/);
    expect(bad.err).not.toContain(junk);
  });
});

describe('external mode’s task size and image', () => {
  it('needs the native runtime’s size and start period, and runs from the runtime stage; managed mode keeps its own', () => {
    expect(runtimeNeeds({ kind: 'openclaw', openclaw: { mode: 'external' } })).toMatchObject({ minCpus: 0.25, minMemoryMb: 512, healthStartSeconds: 20 });
    expect(runtimeNeeds({ kind: 'openclaw' })).toMatchObject({ minCpus: 1, minMemoryMb: 2048, healthStartSeconds: 90 });
    expect(kindSizeProblem({ kind: 'openclaw', openclaw: { mode: 'external' } }, 0.25, 512)).toBeUndefined();
    expect(kindSizeProblem({ kind: 'openclaw', openclaw: { mode: 'managed' } }, 0.25, 512)).toMatch(/needs at least 1 vCPU and 2048 MB/);
    expect(() => parseConfig(demo())).not.toThrow();
    expect(() => parseConfig(demo({ mode: 'managed' }))).toThrow(ConfigError);
    expect(imageVariantFor({ runtime: { kind: 'openclaw', openclaw: { mode: 'external' } } })).toBe('runtime');
    expect(imageVariantFor({ runtime: { kind: 'openclaw' } })).toBe('openclaw');
  });
});
