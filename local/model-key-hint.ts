// Commands the local fleet tells its operator to paste: how an agent without its model key gets
// one (the key read from stdin, kept out of shell history; the running fleet restarts that agent
// with it), naming the files the fleet was started with where they are not the defaults, so the
// pasted command reaches this fleet and not the one in the current folder.
import { isAbsolute, relative, resolve } from 'node:path';

/** The files a local fleet runs on (absolute paths), as `clawfleet start` takes them. */
export interface FleetFiles {
  config: string;
  secrets: string;
  state: string;
}

/** `clawfleet start`'s defaults, which a pasted command may leave out. */
export const FLEET_FILE_DEFAULTS: FleetFiles = { config: 'clawfleet.json', secrets: 'clawfleet.secrets.json', state: '.clawfleet' };

/** A word the shell reads as it is: quoted where it holds anything but letters, digits and `_ . / -`. */
export const shellWord = (s: string): string => (/^[\w./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/** ` --state x` and the like, for the files of `which` that are not at their defaults from `cwd` (relative where beneath it). */
export function fleetFileArgs(files: FleetFiles, cwd: string, which: readonly (keyof FleetFiles)[]): string {
  return which
    .filter((k) => resolve(cwd, files[k]) !== resolve(cwd, FLEET_FILE_DEFAULTS[k]))
    .map((k) => {
      const path = resolve(cwd, files[k]);
      const rel = relative(cwd, path);
      return ` --${k} ${shellWord(rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path)}`;
    })
    .join('');
}

export function giveKeyHint(keyName: string, agentId: string, files: FleetFiles, cwd: string): string {
  const args = fleetFileArgs(files, cwd, ['config', 'secrets', 'state']);
  return `give it the key with: printf %s "$${keyName}" | npx clawfleet secrets set ${keyName} --agent ${agentId}${args} (the agent restarts with it)`;
}
