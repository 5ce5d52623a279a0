// The task role's credentials settings out of the runtime's environment. ECS puts them in the
// container's environment (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI on Fargate: whoever knows
// the path gets the role's credentials from 169.254.170.2), and /proc/<pid>/environ keeps the
// environment a process was started with, whatever it deletes from process.env later. So the
// runtime started with them writes them to a file only its own user can read, in its own state
// directory, and re-executes itself (process.execve: Node >= 22.15) with an environment
// without them; the new process reads the file, deletes it, and hands the settings to the AWS
// SDK's credential chain (aws-default-credentials.ts). Nothing is left for a tool's uid, a
// file tool's race through /proc, or a child that inherits process.env.
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from '../../../shared/zod.ts';
import { ECS_CONTAINER_VARIABLES, ECS_CREDENTIAL_VARIABLES } from '../../../shared/ecs-container-variables.ts';
import { ConfigError } from '../../../shared/errors.ts';

const CREDENTIAL_VARIABLES = ECS_CREDENTIAL_VARIABLES;

/** Every variable the runtime removes from its environment at start. */
export const CONTAINER_VARIABLES: readonly string[] = ECS_CONTAINER_VARIABLES;

const SettingsSchema = z.strictObject({
  relativeUri: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
  fullUri: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
  token: z.optional(z.string().check(z.minLength(1), z.maxLength(16_384))),
  tokenFile: z.optional(z.string().check(z.minLength(1), z.maxLength(4096))),
});
/** The container credentials settings as ECS gave them, for the SDK's HTTP credential provider. */
export type ContainerCredentialSettings = z.infer<typeof SettingsSchema>;

/** The file in the runtime's own state that carries the settings across the re-execution, for an instant. */
export const HANDOFF_FILE = 'container-credentials.json';

export interface ReExec {
  /** process.execve where Node has it (>= 22.15 / 23.11); undefined on Node 20. */
  execve: ((file: string, args: string[], env: NodeJS.ProcessEnv) => never) | undefined;
  execPath: string;
  execArgv: readonly string[];
  argv: readonly string[];
  nodeVersion: string;
}

export const thisProcess = (): ReExec => ({
  execve: (process as { execve?: ReExec['execve'] }).execve?.bind(process),
  execPath: process.execPath,
  execArgv: process.execArgv,
  argv: process.argv,
  nodeVersion: process.version,
});

const refuse = (path: string, message: string) => new ConfigError([{ path, message }], 'runtime environment');

/**
 * When the environment holds ECS's container variables: writes the credential settings to
 * `<stateDir>/container-credentials.json` (0600, the runtime's own directory) and replaces this
 * process with the same node, arguments and environment less those variables. Returns only
 * when there is nothing to hand over; refuses (never runs with them) where it cannot re-execute.
 */
export function handOffContainerCredentials(env: NodeJS.ProcessEnv, stateDir: string, re: ReExec = thisProcess()): void {
  if (!CONTAINER_VARIABLES.some((name) => env[name] !== undefined)) return;
  handOffAndExec(env, stateDir, [re.execPath, ...re.execArgv, ...re.argv.slice(1)], re);
}

/**
 * The image's entry (launch.ts), PID 1 for an instant: hands the settings over as above when
 * the environment holds them, then replaces this process with `command` (tini, then the
 * runtime) in an environment without them — so PID 1 never keeps them in its environ, and the
 * runtime finds the hand-over file at its start. Never returns.
 */
export function launchWithout(env: NodeJS.ProcessEnv, stateDir: string, command: readonly string[], re: ReExec = thisProcess()): never {
  if (!command[0]?.startsWith('/')) throw refuse('argv', `the entry needs the command to run as an absolute path (got ${JSON.stringify(command[0] ?? '')})`);
  if (CONTAINER_VARIABLES.some((name) => env[name] !== undefined)) handOffAndExec(env, stateDir, command, re);
  if (!re.execve)
    throw refuse('argv', `Node ${re.nodeVersion} cannot replace itself with ${command[0]} (process.execve needs Node >= 22.15; the image runs Node 24)`);
  return re.execve(command[0], [...command], env);
}

function handOffAndExec(env: NodeJS.ProcessEnv, stateDir: string, command: readonly string[], re: ReExec): never {
  const present = CONTAINER_VARIABLES.filter((name) => env[name] !== undefined);
  if (env.CLAWFLEET_CONTROL_URL) {
    throw refuse(present[0]!, 'is a container variable of ECS, and this runtime is a local one (CLAWFLEET_CONTROL_URL): its launcher must not pass it on');
  }
  if (!re.execve) {
    throw refuse(
      present[0]!,
      `is set (ECS's task credentials), and Node ${re.nodeVersion} cannot re-execute itself without it (process.execve needs Node >= 22.15): the runtime does not run with it in its environment, where /proc/<pid>/environ keeps it (the image runs Node 24)`,
    );
  }
  const settings: ContainerCredentialSettings = {};
  for (const [key, name] of Object.entries(CREDENTIAL_VARIABLES) as [keyof ContainerCredentialSettings, string][]) {
    if (env[name]) settings[key] = env[name];
  }
  const file = writeHandoff(stateDir, settings);
  const rest = Object.fromEntries(Object.entries(env).filter(([name]) => !CONTAINER_VARIABLES.includes(name)));
  try {
    return re.execve(command[0]!, [...command], rest);
  } catch (err) {
    // execve returned: this process runs on, unchanged, and the settings must not stay behind.
    rmSync(file, { force: true });
    throw err;
  }
}

/**
 * The settings a re-executing runtime left for this process, read once and deleted; undefined
 * when there are none (every start but the one after a hand-over, and always locally).
 */
export function takeContainerCredentials(stateDir: string): ContainerCredentialSettings | undefined {
  const file = join(stateDir, HANDOFF_FILE);
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw refuse('CLAWFLEET_RUNTIME_STATE', `holds ${HANDOFF_FILE}, which cannot be opened as a file (${(err as NodeJS.ErrnoException).code})`);
  }
  let text: string;
  try {
    const st = fstatSync(fd);
    // Only a file this user wrote and nobody else can read is taken: anything else was not left by the runtime.
    if (!st.isFile() || st.uid !== process.getuid?.() || (st.mode & 0o077) !== 0) {
      throw refuse('CLAWFLEET_RUNTIME_STATE', `holds ${HANDOFF_FILE}, which is not the runtime's own (owner ${st.uid}, mode ${(st.mode & 0o777).toString(8)})`);
    }
    text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
    unlinkSync(file);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = SettingsSchema.safeParse(json);
  // Paths only, never a value: the file holds the credentials URI and perhaps a token.
  if (!parsed.success) throw refuse('CLAWFLEET_RUNTIME_STATE', `holds ${HANDOFF_FILE}, which is not what the runtime writes`);
  return parsed.data;
}

/** Writes the settings where only this user reads them: a directory of its own, a file created new. */
function writeHandoff(stateDir: string, settings: ContainerCredentialSettings): string {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const dir = lstatSync(stateDir);
  if (!dir.isDirectory() || dir.uid !== process.getuid?.() || (dir.mode & 0o022) !== 0) {
    throw refuse(
      'CLAWFLEET_RUNTIME_STATE',
      `(${stateDir}) must be a directory of the runtime's own that no one else can write (it is owned by ${dir.uid}, mode ${(dir.mode & 0o777).toString(8)}): the task credentials settings pass through it at start`,
    );
  }
  const file = join(stateDir, HANDOFF_FILE);
  // One left by a start that died between writing and re-executing is the same task's: replaced.
  rmSync(file, { force: true });
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeFileSync(fd, JSON.stringify(settings));
  } finally {
    closeSync(fd);
  }
  return file;
}
