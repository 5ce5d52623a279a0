// The bridge's OpenClaw device identity, for an operator's gateway (external mode): an
// Ed25519 keypair whose public key the gateway's operator approves once (`openclaw devices
// approve <requestId>`). On AWS it is the agent's secret's OPENCLAW_DEVICE_KEY, so every task
// is the same device; locally that value when the secrets file has it, else a key made once
// in the runtime's own state directory (mode 0600, a directory the sandbox hides, so no tool
// uid reads it). The device id is the SHA-256 of the raw public key, and each connect signs
// the gateway's challenge with the fields OpenClaw's v3 device-auth payload binds
// (docs/runtime.md, "External mode").
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ClawfleetError } from '../../../shared/errors.ts';
import { deviceIdOf, deviceKeyProblem, newDeviceKeyPem, parseDeviceKey, rawPublicKey } from '../../../shared/secrets/openclaw-device-key.ts';

export interface DeviceIdentity {
  /** hex SHA-256 of the raw public key: what `openclaw devices list` shows. */
  deviceId: string;
  /** The raw 32-byte public key, base64url. */
  publicKey: string;
  sign(payload: string): string;
}

/** What the gateway's challenge and the connect request bind together. */
export interface ConnectSigning {
  clientId: string;
  clientMode: string;
  role: string;
  scopes: string[];
  /** The challenge's `ts`, sent back as `device.signedAt`. */
  signedAtMs: number;
  /** The shared token sent in `auth.token`. */
  token: string;
  nonce: string;
  platform: string;
}

/** OpenClaw's v3 device-auth payload: fields joined by "|", metadata lower-cased. */
export function deviceAuthPayload(deviceId: string, s: ConnectSigning): string {
  const lower = (v: string) => v.trim().toLowerCase();
  return ['v3', deviceId, s.clientId, s.clientMode, s.role, s.scopes.join(','), String(s.signedAtMs), s.token, s.nonce, lower(s.platform), ''].join('|');
}

function identityOf(privateKey: KeyObject): DeviceIdentity {
  return {
    deviceId: deviceIdOf(privateKey),
    publicKey: rawPublicKey(privateKey).toString('base64url'),
    sign: (payload) => sign(null, Buffer.from(payload, 'utf8'), privateKey).toString('base64url'),
  };
}

/** The identity stored at `file`, made (and written 0600) on first use; a file that is not an Ed25519 key is an error, never replaced. */
export function loadOrCreateDeviceIdentity(file: string): DeviceIdentity {
  if (existsSync(file)) {
    let key: KeyObject;
    try {
      key = createPrivateKey(readFileSync(file, 'utf8'));
    } catch {
      throw new ClawfleetError(
        'OPENCLAW_GATEWAY_FAILED',
        `the OpenClaw device key at ${file} is unreadable; delete it to make a new one (the gateway must approve the new device)`,
      );
    }
    if (key.asymmetricKeyType !== 'ed25519')
      throw new ClawfleetError('OPENCLAW_GATEWAY_FAILED', `the OpenClaw device key at ${file} is not an Ed25519 key; delete it to make a new one`);
    return identityOf(key);
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const pem = newDeviceKeyPem();
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, pem, { mode: 0o600, flag: 'w' });
  renameSync(tmp, file);
  return identityOf(createPrivateKey(pem));
}

/**
 * The identity held in the agent's secret (`name`, e.g. OPENCLAW_DEVICE_KEY). A value that is
 * not an Ed25519 PKCS#8 PEM key is an error naming the value and how to make a new one — the
 * value itself is never quoted.
 */
export function deviceIdentityFromSecret(pem: string, name: string, howToMake: string): DeviceIdentity {
  const key = parseDeviceKey(pem);
  if (!key)
    throw new ClawfleetError('OPENCLAW_DEVICE_KEY_INVALID', `${name} in the agent's secret ${deviceKeyProblem(pem)}; make a new one with: ${howToMake}`);
  return identityOf(key);
}
