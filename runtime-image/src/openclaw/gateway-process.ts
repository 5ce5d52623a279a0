// A managed OpenClaw gateway: its config written (0600, in the runtime's own state, out of
// the sandbox's sight), the pinned OpenClaw started on Node 24 as a child of this runtime
// with an environment holding no secret at all (the agent's keys are in its config file,
// which holds this agent's alone), and watched until it says it is ready. A small guard
// process stands between: it kills the gateway's whole process group when this runtime's
// end of its stdin closes, so a SIGKILLed runtime leaves no gateway behind with its keys.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { ClawfleetError } from '../../../shared/errors.ts';
import type { Logger } from '../../../shared/log.ts';
import { gatewayConfig, type GatewayConfigInputs } from './gateway-config.ts';

/**
 * Run by Node 24 with `-e`: spawns the gateway in a process group of its own, passes
 * SIGTERM on, and when stdin ends (the runtime is gone, however it died) kills the group,
 * SIGKILL after 5 s. Exits with the gateway's code.
 */
const GUARD = `
const { spawn } = require('node:child_process');
const [cmd, ...args] = process.argv.slice(1);
const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], detached: true });
const group = (sig) => { try { process.kill(-child.pid, sig); } catch {} };
let ending = false;
const end = (sig) => { if (ending) return; ending = true; group(sig); setTimeout(() => group('SIGKILL'), 5000).unref(); };
process.stdin.on('data', () => {});
process.stdin.on('end', () => end('SIGTERM'));
process.stdin.on('error', () => end('SIGTERM'));
process.on('SIGTERM', () => end('SIGTERM'));
process.on('SIGINT', () => end('SIGTERM'));
child.on('exit', (code, signal) => { group('SIGKILL'); process.exit(code ?? (signal ? 1 : 0)); });
`;

export interface OpenclawInstallPaths {
  /** Node 24. */
  node: string;
  /** OpenClaw's CLI entry (openclaw.mjs). */
  cli: string;
}

export interface ManagedGateway {
  url: string;
  token: string;
  pid: number | undefined;
  /** The written config file (tests read it to prove what it holds). */
  configPath: string;
  /** Resolves with the exit code once the gateway (and its guard) are gone. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** A free loopback port, asked of the kernel. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startManagedGateway(opts: {
  install: OpenclawInstallPaths;
  /** The gateway's own directory: config, home, state, logs (inside the runtime's state). */
  dir: string;
  config: Omit<GatewayConfigInputs, 'port' | 'token' | 'logFile'>;
  log: Logger;
  readyTimeoutMs: number;
}): Promise<ManagedGateway> {
  const { install, dir, log } = opts;
  for (const file of [install.node, install.cli]) {
    if (!existsSync(file)) throw new ClawfleetError('OPENCLAW_NOT_INSTALLED', `runtime.kind "openclaw" needs OpenClaw installed: ${file} is missing (docs/runtime.md, "Installing OpenClaw")`);
  }
  const port = await freePort();
  const token = randomBytes(32).toString('base64url');
  const home = join(dir, 'home');
  const tmp = join(dir, 'tmp');
  for (const d of [dir, home, tmp]) mkdirSync(d, { recursive: true, mode: 0o700 });
  const configPath = join(dir, 'openclaw.json');
  writeFileSync(configPath, JSON.stringify(gatewayConfig({ ...opts.config, port, token, logFile: join(dir, 'logs', 'openclaw.log') }), null, 2), { mode: 0o600 });

  const child: ChildProcess = spawn(install.node, ['-e', GUARD, install.node, install.cli, 'gateway', 'run', '--port', String(port)], {
    cwd: dir,
    // No secret here, nothing of the runtime's own environment: names and paths only.
    env: {
      PATH: `${dirname(install.node)}:/usr/local/bin:/usr/bin:/bin`,
      HOME: home,
      TMPDIR: tmp,
      OPENCLAW_STATE_DIR: join(dir, 'state'),
      OPENCLAW_CONFIG_PATH: configPath,
      NO_COLOR: '1',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const recent: string[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ClawfleetError('OPENCLAW_GATEWAY_FAILED', `the OpenClaw gateway was not ready within ${opts.readyTimeoutMs / 1000} s; its last lines: ${recent.join(' | ').slice(-1500)}`)), opts.readyTimeoutMs);
    const onLine = (line: string) => {
      recent.push(line);
      if (recent.length > 20) recent.shift();
      if (/\[gateway\] ready\b/.test(line)) {
        clearTimeout(timer);
        resolve();
      }
      if (/\b(error|failed|invalid)\b/i.test(line)) log.warn('openclaw gateway', { line: line.slice(0, 1000) });
    };
    for (const stream of [child.stdout!, child.stderr!]) {
      let buffer = '';
      stream.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          onLine(buffer.slice(0, nl));
          buffer = buffer.slice(nl + 1);
        }
      });
    }
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new ClawfleetError('OPENCLAW_GATEWAY_FAILED', `the OpenClaw gateway exited (code ${code}) before it was ready; its last lines: ${recent.join(' | ').slice(-1500)}`));
    });
  });
  child.stdin!.on('error', () => {});
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin!.end();
    await exited;
  };
  try {
    await ready;
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `ws://127.0.0.1:${port}`, token, pid: child.pid, configPath, exited, stop };
}
