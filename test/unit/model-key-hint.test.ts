// The commands the local fleet tells its operator to paste name the files the fleet was started
// with wherever they are not the defaults, so they reach this fleet, quoted for the shell.
import { describe, expect, it } from 'vitest';
import { fleetFileArgs, giveKeyHint } from '../../local/model-key-hint.ts';

const cwd = '/home/ada/fleet';
const defaults = { config: `${cwd}/clawfleet.json`, secrets: `${cwd}/clawfleet.secrets.json`, state: `${cwd}/.clawfleet` };

describe('a pasted command’s file options', () => {
  it('leave out the files at their defaults', () => {
    expect(fleetFileArgs(defaults, cwd, ['config', 'secrets', 'state'])).toBe('');
    expect(giveKeyHint('OPENAI_API_KEY', 'fran', defaults, cwd)).toBe(
      'give it the key with: printf %s "$OPENAI_API_KEY" | npx clawfleet secrets set OPENAI_API_KEY --agent fran (the agent restarts with it)',
    );
  });

  it('name the others, relative beneath the folder, absolute outside it, quoted where the shell would split them', () => {
    const files = { config: `${cwd}/fleets/home.json`, secrets: '/etc/clawfleet/secrets.json', state: `${cwd}/state dir/it's` };
    expect(fleetFileArgs(files, cwd, ['config', 'secrets', 'state'])).toBe(
      ` --config fleets/home.json --secrets /etc/clawfleet/secrets.json --state 'state dir/it'\\''s'`,
    );
    expect(fleetFileArgs(files, cwd, ['state'])).toBe(` --state 'state dir/it'\\''s'`);
    expect(giveKeyHint('ANTHROPIC_API_KEY', 'jerry', files, cwd)).toContain(
      "--agent jerry --config fleets/home.json --secrets /etc/clawfleet/secrets.json --state 'state dir/it'\\''s' (the agent restarts with it)",
    );
  });

  it('take relative paths as the shell gave them, from its folder', () => {
    expect(fleetFileArgs({ ...defaults, state: '.clawfleet', config: '../other/clawfleet.json' }, cwd, ['config', 'state'])).toBe(
      ' --config /home/ada/other/clawfleet.json',
    );
  });
});
