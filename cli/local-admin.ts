// The CLI's way into a running local fleet: its admin API, found through the admin file
// `npm start` writes to the state directory; and the fleet it reached, named, and checked to be
// the one the config describes (another fleet's state directory answers just as readily).
import { resolve } from 'node:path';
import type { z } from 'zod';
import { readAdminFile } from '../local/admin-file.ts';
import { FleetStatusSchema } from '../local/fleet-status.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { CliError, EXIT, type CliIO } from './command.ts';

export interface LocalAdmin {
  url: string;
  get<T>(path: string, schema: z.ZodType<T>): Promise<T>;
  post<T>(path: string, body: unknown, schema: z.ZodType<T>): Promise<T>;
}

export function localAdmin(stateDir: string, io: CliIO): LocalAdmin {
  const dir = resolve(io.cwd, stateDir);
  const file = readAdminFile(dir);
  if (!file) {
    throw new CliError(
      EXIT.failed,
      `no local fleet is running with state in ${dir} (no admin.json there).\nStart one with \`clawfleet start\` (or \`npm start\`), or pass --aws for the deployed fleet.`,
    );
  }
  const call = async <T>(method: string, path: string, body: unknown, schema: z.ZodType<T>): Promise<T> => {
    let res: Response;
    try {
      res = await fetch(`${file.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${file.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(60_000),
      });
    } catch (err) {
      throw new CliError(EXIT.failed, `the local fleet at ${file.url} does not answer (${(err as Error).message}); is \`clawfleet start\` still running?`);
    }
    const json: unknown = await res.json().catch(() => ({}));
    if (!res.ok) {
      const error = typeof json === 'object' && json !== null && 'error' in json ? String(json.error) : `HTTP ${res.status}`;
      throw new CliError(res.status === 400 ? EXIT.usage : EXIT.failed, `the local fleet refused: ${error}`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new CliError(EXIT.failed, `the local fleet answered something unexpected: ${parsed.error.message}`);
    return parsed.data;
  };
  return {
    url: file.url,
    get: (path, schema) => call('GET', path, undefined, schema),
    post: (path, body, schema) => call('POST', path, body, schema),
  };
}

/** A running local fleet, reached: its admin API, its name and agents as it runs, and where, in words. */
export interface ReachedFleet {
  admin: LocalAdmin;
  fleet: string;
  agents: string[];
  /** `fleet "demo" at http://127.0.0.1:8787`. */
  where: string;
}

/**
 * The fleet running on `stateDir`. With `config`, it must be that config's fleet, holding
 * `agentId` if one is named: otherwise the command would act on another fleet (or an agent it
 * does not run), and the error names the fleet it reached and its agents.
 */
export async function reachLocalFleet(stateDir: string, io: CliIO, config?: FleetConfig, agentId?: string): Promise<ReachedFleet> {
  const admin = localAdmin(stateDir, io);
  const status = await admin.get('/admin/status', FleetStatusSchema);
  const agents = status.agents.map((a) => a.id);
  const where = `fleet "${status.fleet}" at ${admin.url}`;
  const dir = resolve(io.cwd, stateDir);
  if (config && config.fleet !== status.fleet) {
    throw new CliError(
      EXIT.failed,
      `${where} (state in ${dir}) runs agents ${agents.join(', ')}; the config names fleet "${config.fleet}". ` +
        `Pass --state <dir> of fleet "${config.fleet}", or --config <file> of fleet "${status.fleet}"`,
    );
  }
  if (agentId && !agents.includes(agentId)) {
    throw new CliError(
      EXIT.failed,
      `${where} runs agents ${agents.join(', ')}, not "${agentId}": it started before the config listed it; restart it (clawfleet start) to take the change`,
    );
  }
  return { admin, fleet: status.fleet, agents, where };
}
