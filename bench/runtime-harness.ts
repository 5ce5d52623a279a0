// What the runtime benchmarks start a runtime with: the image's app (bundle, workspace
// template and whatever else the Dockerfile's build stage makes), built by running that
// stage's own commands, from the working tree or from any git ref; the command and
// environment the Dockerfile's final stage runs it with; a container's view of /tmp and
// /proc; and a stand-in for the local control plane's runtime channel that never has work,
// so a runtime stays idle after `ready`.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { delimiter, dirname, join } from 'node:path';

/** The runtime channel reduced to "nothing to do": a receive waits as long as asked and returns no message. */
export async function idleControlChannel(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = () => res.writeHead(200, { 'content-type': 'application/json' }).end(req.url === '/runtime/receive' ? '{"messages":[]}' : '{}');
      if (req.url !== '/runtime/receive') return reply();
      let waitSeconds = 1;
      try {
        waitSeconds = Number((JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { waitSeconds?: number }).waitSeconds ?? 1);
      } catch {
        // a malformed body waits the default
      }
      const timer = setTimeout(reply, waitSeconds * 1000);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** Builds the image's bundle into `dir`/dist, with the workspace template at `dir`/templates where the bundle looks for it. */
export function buildRuntimeBundle(repo: string, dir: string): string {
  execFileSync(process.execPath, [join(repo, 'runtime-image/build.mjs'), join(dir, 'dist')], { stdio: ['ignore', 'ignore', 'inherit'] });
  cpSync(join(repo, 'runtime-image/templates'), join(dir, 'templates'), { recursive: true });
  return join(dir, 'dist', 'main.mjs');
}

/** The files of `ref` the runtime image is built from, in `dir`, with this checkout's node_modules beside them. */
export function checkoutForImage(repo: string, ref: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  // git archive, not a worktree: nothing is written to the repository.
  const tar = execFileSync('git', ['-C', repo, 'archive', '--format=tar', ref, '--', 'package.json', 'tsconfig.json', 'shared', 'runtime-image'], {
    maxBuffer: 256 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'));
  return execFileSync('git', ['-C', repo, 'rev-parse', '--short', ref], { encoding: 'utf8' }).trim();
}

/** A Dockerfile's stages: each stage's instructions, continuation lines joined, comments dropped. */
function dockerStages(dockerfile: string): { name: string | undefined; instructions: { op: string; args: string }[] }[] {
  const stages: { name: string | undefined; instructions: { op: string; args: string }[] }[] = [];
  const logical = dockerfile
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  for (const line of logical) {
    const [, op, args] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
    if (!op || args === undefined) continue;
    if (op.toUpperCase() === 'FROM') stages.push({ name: / AS (\S+)$/i.exec(args)?.[1], instructions: [] });
    else stages.at(-1)?.instructions.push({ op: op.toUpperCase(), args });
  }
  return stages;
}

/** `ENV a=1 b="2"` as an object. */
function envPairs(args: string): Record<string, string> {
  return Object.fromEntries([...args.matchAll(/(\w+)=("[^"]*"|\S+)/g)].map(([, k, v]) => [k!, v!.replace(/^"|"$/g, '')]));
}

export interface ImageApp {
  /** What /app holds in the image. */
  app: string;
  /** The final stage's CMD with /app mapped to `app`: the Node flags and entry after `node`. */
  nodeArgs: string[];
  /** The final stage's ENV with /app mapped to `app`. */
  env: Record<string, string>;
}

/**
 * Builds the image's /app from the sources in `src` into `app` as the Dockerfile's build
 * stage does — its RUN lines after `npm ci` (node_modules is already there), on `node` (the
 * image's Node), with the directory it copies to /app mapped to `app` — and reads how the
 * final stage runs it. Nothing else of the image (users, tini) is made here.
 */
export function buildImageApp(src: string, app: string, node: string): ImageApp {
  const stages = dockerStages(readFileSync(join(src, 'runtime-image/Dockerfile'), 'utf8'));
  const build = stages.find((s) => s.name === 'build');
  // The runtime's own stage (the default target re-exports it after the browser variant).
  const final = stages.find((s) => s.name === 'runtime') ?? stages.at(-1);
  if (!build || !final || build === final) throw new Error('runtime-image/Dockerfile: expected a build stage named "build" and a final stage');
  const copy = final.instructions.find((i) => i.op === 'COPY' && i.args.startsWith('--from=build '));
  const [, from] = /^--from=build\s+(\S+?)\/?\s+\/app\/?$/.exec(copy?.args ?? '') ?? [];
  if (!from) throw new Error(`runtime-image/Dockerfile: expected COPY --from=build <dir> /app/, found ${copy?.args}`);
  const toApp = (s: string) => s.replaceAll(`${from}/`, `${app}/`).replace(new RegExp(`${from}(?=\\s|$)`, 'g'), app);
  mkdirSync(dirname(app), { recursive: true });
  for (const run of build.instructions.filter((i) => i.op === 'RUN' && !/\bnpm ci\b/.test(i.args))) {
    execFileSync('sh', ['-c', toApp(run.args)], {
      cwd: src,
      env: { ...process.env, PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}` },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  const cmd = final.instructions.findLast((i) => i.op === 'CMD');
  const argv = JSON.parse(cmd?.args ?? 'null') as unknown;
  if (!Array.isArray(argv) || argv[0] !== 'node') throw new Error(`runtime-image/Dockerfile: expected CMD ["node", …], found ${cmd?.args}`);
  const fromApp = (s: string) => s.replace(/^\/app(?=\/|$)/, app);
  const env = Object.fromEntries(
    final.instructions
      .filter((i) => i.op === 'ENV')
      .flatMap((i) => Object.entries(envPairs(i.args)))
      .map(([k, v]) => [k, fromApp(v)]),
  );
  return { app, nodeArgs: (argv.slice(1) as string[]).map(fromApp), env };
}

/** Where util-linux's unshare is, when this process may use it (root): else runs are not container-like. */
export function unshareBinary(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const candidate of ['/usr/bin/unshare', '/bin/unshare']) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * `cmd` as a container runs it, as far as the runtime's start can tell: a PID namespace of its
 * own (it is PID 1 and sees only its own processes in /proc) and an empty /tmp of its own
 * (`dirs` made in it first). The sandbox probe's cleanup scans /proc and sweeps /tmp, which on
 * a shared machine hold thousands of entries that a task never has. Killing the returned
 * process (unshare) kills the namespace with everything in it.
 */
export function containerLike(unshare: string, cmd: string[], dirs: string[]): string[] {
  const script = `mount -t tmpfs -o mode=1777,size=256m tmpfs /tmp && mkdir -p ${dirs.map((d) => `'${d}'`).join(' ')} && exec "$@"`;
  return [unshare, '--pid', '--fork', '--mount-proc', '--kill-child', '/bin/sh', '-c', script, 'sh', ...cmd];
}
