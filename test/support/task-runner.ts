// Runs one ECS task's container in the local engine the way Fargate would: a pause container
// holds the task's network namespace (awsvpc), with only loopback in it (--network none); ECS's
// task-credentials endpoint is served at 169.254.170.2 inside that namespace, answering only
// the relative URI ECS puts in the container's environment; the host's loopback ports the
// task needs (the emulator, the fake model) are mirrored to the same addresses inside it, so
// every URL in the task definition works unchanged and nothing else of the host is reachable.
// The container itself is created from the task definition (ecs-task-definition.ts).
//
// The mirrors and the endpoint are a small forwarder that `nsenter` starts inside the task's
// network namespace (a host process: not in the container's pid or mount namespace, out of
// the agent's sight), relaying each connection over a unix socket to a server of this process.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tempDir } from './temp-dirs.ts';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { ensureDebianPackages, findSystemBinary } from './container-engine.ts';
import { docker, dockerRun } from './docker-cli.ts';
import { type ContainerState, engineApi, inspectContainer } from './engine-api.ts';
import { type AccessPoint, containerCreateBody, type TaskDefinition } from './ecs-task-definition.ts';
import { JsonLineLog } from './json-line-log.ts';

/** Where ECS serves task credentials and metadata on Fargate. */
export const ECS_ENDPOINT = '169.254.170.2';

export interface CredentialsRequest {
  method: string;
  path: string;
  at: number;
}

export interface TaskRunOptions {
  /** A name unique on the engine: the containers are `<name>` and `<name>-pause`. */
  name: string;
  taskDefinition: TaskDefinition;
  /** The image its container runs (the stage built for the agent). */
  image: string;
  /** Each volume's host directory (workspaceFor() makes one as an access point would). */
  volumes: Record<string, string>;
  /** Ports on the host's 127.0.0.1 the task reaches at the same address. */
  loopbackPorts: number[];
  /** The task role's credentials, served at ECS's endpoint for the task's relative URI only. */
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  region: string;
  /** Environment after ECS's own (e.g. AWS_ENDPOINT_URL for the emulator). */
  env?: Record<string, string>;
  /**
   * Not the task definition's (ECS has no such setting; a Fargate task is a VM of its own): a
   * cap on the container's processes, so an attack that forks without end cannot take this
   * shared machine's pids. Set it well above what the task's own limits allow.
   */
  pidsLimit?: number;
}

export interface TaskRun {
  id: string;
  name: string;
  /** The relative URI ECS gave the container (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI). */
  credentialsUri: string;
  /** Every request the credentials endpoint got. */
  credentialRequests: CredentialsRequest[];
  lines: Record<string, unknown>[];
  output(): string;
  waitFor(predicate: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  state(): Promise<ContainerState>;
  /** Host pid of the runtime (tini's child). */
  runtimePid(): Promise<number>;
  /** The container's processes as the host sees them (`docker top`): pid, state, uid, command name. */
  processes(): Promise<{ pid: number; state: string; uid: number; comm: string }[]>;
  /** A file of the container's cgroup (v1) for `controller`, as the host sees it, e.g. ('memory', 'memory.failcnt'). */
  cgroupFile(controller: string, file: string): Promise<string>;
  /** `docker kill --signal`. */
  signal(signal: string): Promise<void>;
  /** `docker stop` with the container's own stop timeout (the task definition's); resolves with its exit code. */
  stop(): Promise<number>;
  /** Resolves with the exit code once the container has stopped. */
  exited(): Promise<number>;
  /** Removes both containers, the forwarder and its servers. */
  remove(): Promise<void>;
}

/**
 * The host directory standing in for an EFS volume through `accessPoint`: `<efsRoot><path>`,
 * made on first use with the access point's owner and permissions, as EFS creates it.
 * (EFS's identity mapping — every operation as the access point's POSIX user — is not
 * emulated: the directory is an ordinary one.)
 */
export function workspaceFor(efsRoot: string, accessPoint: AccessPoint | undefined): string {
  const path = join(efsRoot, accessPoint?.rootDirectory?.path ?? '/');
  if (!existsSync(path)) {
    mkdirSync(path, { recursive: true });
    const info = accessPoint?.rootDirectory?.creationInfo;
    if (info) {
      chownSync(path, info.ownerUid, info.ownerGid);
      chmodSync(path, Number.parseInt(info.permissions, 8));
    }
  }
  return path;
}

// Inside the task's network namespace: listen on each address and relay every connection to
// its unix socket. Says "ready" once all listen; exits when its stdin closes.
const FORWARDER = `
const net = require('node:net');
let waiting = process.argv.length - 1;
for (const spec of process.argv.slice(1)) {
  const [address, socket] = spec.split('=');
  const at = address.lastIndexOf(':');
  net.createServer((c) => {
    const u = net.connect(socket);
    c.on('error', () => u.destroy()); u.on('error', () => c.destroy());
    c.pipe(u).pipe(c);
  }).listen(Number(address.slice(at + 1)), address.slice(0, at), () => { if (--waiting === 0) console.log('ready'); });
}
process.stdin.on('end', () => process.exit(0)).resume();
`;

function waitForLine(child: ChildProcess, line: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the forwarder did not say "${line}" within ${timeoutMs} ms: ${out}`)), timeoutMs);
    const take = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.split('\n').includes(line)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the forwarder exited (${code}): ${out}`));
    });
  });
}

function run(file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${file} ${args.join(' ')} exited ${code}: ${err.trim()}`))));
  });
}

/** This process's hard limit on open files: what a container here can be given at most. */
function ownNofileHardLimit(): number {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const hard = line?.trim().split(/\s+/)[4];
  return hard === undefined || hard === 'unlimited' ? Number.POSITIVE_INFINITY : Number(hard);
}

/** Follows the container's output, parsing the runtime's JSON lines. */
function followLogs(id: string) {
  const child = spawn('docker', ['logs', '--follow', id], { stdio: ['ignore', 'pipe', 'pipe'] });
  const ended = new Promise<void>((r) => child.once('exit', () => r()));
  const log = new JsonLineLog('the container', 'stopped', ended);
  // docker logs gives the container's stdout and stderr as its own two: both are the runtime's lines.
  child.stdout.on('data', (chunk: Buffer) => log.take(chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => log.take(chunk.toString('utf8')));
  return {
    lines: log.lines,
    raw: () => log.raw(),
    stop: () => child.kill(),
    waitFor: (predicate: (line: Record<string, unknown>) => boolean, timeoutMs = 30_000): Promise<Record<string, unknown>> => log.waitFor(predicate, timeoutMs),
  };
}

/** Starts the task's container (and its pause container, endpoint and mirrors). */
export async function runTask(options: TaskRunOptions): Promise<TaskRun> {
  await ensureDebianPackages({ nsenter: 'util-linux', ip: 'iproute2' });
  const [container, ...others] = options.taskDefinition.containerDefinitions;
  if (!container || others.length > 0) throw new Error('the task runner runs tasks of one container, as every clawfleet task is');
  const dir = tempDir('cf-task-');
  const servers: (Server | HttpServer)[] = [];
  let forwarder: ChildProcess | undefined;
  const created: string[] = [];
  const cleanUp = async () => {
    forwarder?.stdin?.end();
    forwarder?.kill();
    for (const id of created.reverse()) await engineApi('DELETE', `/containers/${id}?force=true&v=true`).catch(() => {});
    for (const s of servers) await new Promise<void>((r) => s.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const labels = { 'clawfleet.test': 'image', 'clawfleet.task-family': options.taskDefinition.family };
    // ECS's pause container: holds the task's network namespace, nothing but loopback in it.
    const pause = await engineApi<{ Id: string }>('POST', `/containers/create?name=${options.name}-pause`, {
      Image: options.image,
      Entrypoint: ['/bin/sleep'],
      Cmd: ['infinity'],
      User: '65534',
      // The image's HEALTHCHECK is the runtime's, not the pause container's.
      Healthcheck: { Test: ['NONE'] },
      Labels: labels,
      HostConfig: { NetworkMode: 'none', CapDrop: ['ALL'] },
    });
    created.push(pause.Id);
    await engineApi('POST', `/containers/${pause.Id}/start`);
    const pausePid = (await inspectContainer(pause.Id)).State.Pid;
    const netns = `/proc/${pausePid}/ns/net`;
    await run(findSystemBinary('nsenter')!, [`--net=${netns}`, findSystemBinary('ip')!, 'addr', 'add', `${ECS_ENDPOINT}/32`, 'dev', 'lo']);

    // The task-credentials endpoint: the task role's credentials at the relative URI, nothing anywhere else.
    const credentialsUri = `/v2/credentials/${randomUUID()}`;
    const credentialRequests: CredentialsRequest[] = [];
    const endpoint = createHttpServer((req: IncomingMessage, res) => {
      credentialRequests.push({ method: req.method ?? '', path: req.url ?? '', at: Date.now() });
      if (req.method === 'GET' && req.url === credentialsUri) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            AccessKeyId: options.credentials.accessKeyId,
            SecretAccessKey: options.credentials.secretAccessKey,
            Token: options.credentials.sessionToken ?? `task-session-${randomUUID()}`,
            Expiration: new Date(Date.now() + 3600_000).toISOString(),
            RoleArn: `arn:aws:iam::${options.credentials.accessKeyId}:role/${options.taskDefinition.family}-task`,
          }),
        );
      } else {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"code":"InvalidIdentifier","message":"Unable to find credentials"}');
      }
    });
    const specs: string[] = [];
    const endpointSocket = join(dir, 'ecs.sock');
    await new Promise<void>((r) => endpoint.listen(endpointSocket, r));
    servers.push(endpoint);
    specs.push(`${ECS_ENDPOINT}:80=${endpointSocket}`);
    for (const port of options.loopbackPorts) {
      const socket = join(dir, `${port}.sock`);
      const relay = createServer((c) => {
        const u = connect(port, '127.0.0.1');
        c.on('error', () => u.destroy());
        u.on('error', () => c.destroy());
        c.pipe(u).pipe(c);
      });
      await new Promise<void>((r) => relay.listen(socket, r));
      servers.push(relay);
      specs.push(`127.0.0.1:${port}=${socket}`);
    }
    forwarder = spawn(findSystemBinary('nsenter')!, [`--net=${netns}`, '--', process.execPath, '-e', FORWARDER, ...specs], { stdio: ['pipe', 'pipe', 'pipe'] });
    await waitForLine(forwarder, 'ready', 30_000);

    // The container as ECS would create it, with the environment ECS adds on Fargate.
    const ecsEnv = {
      AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: credentialsUri,
      ECS_CONTAINER_METADATA_URI_V4: `http://${ECS_ENDPOINT}/v4/${randomUUID()}`,
      AWS_EXECUTION_ENV: 'AWS_ECS_FARGATE',
      AWS_REGION: options.region,
      AWS_DEFAULT_REGION: options.region,
    };
    const body = containerCreateBody(options.taskDefinition, container, {
      image: options.image,
      extraEnv: { ...ecsEnv, ...options.env },
      volumes: options.volumes,
      networkContainer: pause.Id,
      labels,
      nofileCeiling: ownNofileHardLimit(),
    });
    if (options.pidsLimit) (body.HostConfig as Record<string, unknown>).PidsLimit = options.pidsLimit;
    const task = await engineApi<{ Id: string }>('POST', `/containers/create?name=${options.name}`, body);
    created.push(task.Id);
    await engineApi('POST', `/containers/${task.Id}/start`);
    const logs = followLogs(task.Id);
    const exited = engineApi<{ StatusCode: number }>('POST', `/containers/${task.Id}/wait`).then((r) => r.StatusCode);
    exited.catch(() => {});

    return {
      id: task.Id,
      name: options.name,
      credentialsUri,
      credentialRequests,
      lines: logs.lines,
      output: logs.raw,
      waitFor: logs.waitFor,
      state: async () => (await inspectContainer(task.Id)).State,
      async runtimePid() {
        const tini = (await inspectContainer(task.Id)).State.Pid;
        const children = readFileSync(`/proc/${tini}/task/${tini}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
        if (children.length !== 1) throw new Error(`tini (pid ${tini}) has ${children.length} children, not the runtime alone`);
        return children[0]!;
      },
      async processes() {
        const out = await docker(['top', task.Id, '-eo', 'pid,stat,uid,comm']);
        return out
          .split('\n')
          .slice(1)
          .map((l) => l.trim().split(/\s+/))
          .map(([pid, state, uid, comm]) => ({ pid: Number(pid), state: state!, uid: Number(uid), comm: comm! }));
      },
      async cgroupFile(controller, file) {
        const tini = (await inspectContainer(task.Id)).State.Pid;
        const line = readFileSync(`/proc/${tini}/cgroup`, 'utf8')
          .split('\n')
          .find((l) => l.split(':')[1]?.split(',').includes(controller));
        if (!line) throw new Error(`the container has no ${controller} cgroup (v1) here`);
        return readFileSync(join('/sys/fs/cgroup', controller, line.slice(line.indexOf(':', line.indexOf(':') + 1) + 1), file), 'utf8').trim();
      },
      signal: async (signal) => void (await engineApi('POST', `/containers/${task.Id}/kill?signal=${signal}`)),
      async stop() {
        await engineApi('POST', `/containers/${task.Id}/stop`);
        return exited;
      },
      exited: () => exited,
      async remove() {
        logs.stop();
        await cleanUp();
      },
    };
  } catch (err) {
    await cleanUp();
    throw err;
  }
}

/** `docker exec` as root into a running container (the tests' view from outside the agent's reach). */
export async function execAsRoot(id: string, script: string): Promise<string> {
  const r = await dockerRun(['exec', id, '/bin/sh', '-c', script], { timeoutMs: 60_000 });
  if (r.code !== 0) throw new Error(`docker exec ${script} exited ${r.code}: ${r.stderr.trim()}`);
  return r.stdout;
}
