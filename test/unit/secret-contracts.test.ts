// The secrets' contracts, each in one place (shared/secrets/): what a secret name is, what a
// stored secret looks like (a JSON object of named strings) and which names an agent needs —
// so the config, the CLI, the importer, the infra script, the stores and the runtime agree.
// Every refusal names what is wrong and never repeats a value.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSecretValues } from '../../shared/secrets/secret-target.ts';
import { FileSecretStore } from '../../local/secrets-file.ts';
import { missingSecrets } from '../../runtime-image/src/secrets/secret-wait.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import { ClawfleetError, ConfigError } from '../../shared/errors.ts';
import { secretsNeeded } from '../../shared/secrets/agent-secrets.ts';
import { parseSecretObject, parseSecretsFile, SECRET_NAME, secretInFile } from '../../shared/secrets/secret-values.ts';
import { captureIO } from './cli-io.ts';
import { runCli } from '../../cli/main.ts';
import { tempDir } from '../support/temp-dirs.ts';

const VALUE = 'sk-contract-test-value-0123456789';

function codeOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ClawfleetError) {
      expect(err.message).not.toContain(VALUE);
      return { code: err.code, message: err.message };
    }
    throw err;
  }
  throw new Error('accepted');
}

describe('a secret name', () => {
  const good = ['GRAPH_TOKEN', '_x', 'a1', 'A'.repeat(64)];
  const bad = ['bad name', '1ABC', '', 'A'.repeat(65), 'GRAPH-TOKEN', 'ü'];

  it('is one pattern for the config, the infra script and the CLI', async () => {
    for (const name of good) expect(SECRET_NAME.test(name), name).toBe(true);
    for (const name of bad) expect(SECRET_NAME.test(name), name).toBe(false);
    const config = (secrets: string[]) => () =>
      parseConfig({
        fleet: 'demo',
        agents: { defaults: { model: 'm/x', runtime: { cpus: 0.25, memoryMb: 512 } }, list: [{ id: 'fran', secrets }] },
        models: { providers: { m: { api: 'openai-completions' } } },
      });
    for (const name of bad) {
      expect(config([name]), name).toThrow(ConfigError);
      expect(codeOf(() => parseSecretValues(JSON.stringify({ [name]: VALUE }))).code, name).toBe('SECRET_VALUES_INVALID');
    }
    for (const name of good) {
      expect(config([name])).not.toThrow();
      expect(parseSecretValues(JSON.stringify({ [name]: VALUE }))).toEqual({ [name]: VALUE });
    }
    const dir = tempDir('cf-secret-name-');
    writeFileSync(
      join(dir, 'clawfleet.json'),
      JSON.stringify({
        fleet: 'demo',
        agents: { defaults: { model: 'm/x', runtime: { cpus: 0.25, memoryMb: 512 } }, list: [{ id: 'fran' }] },
        models: { providers: { m: { api: 'openai-completions' } } },
      }),
    );
    const io = captureIO({ cwd: dir, stdin: VALUE });
    expect(await runCli(['secrets', 'set', 'bad name', '--agent', 'fran'], io)).toBe(2);
    expect(io.errText()).toContain('"bad name" is not a secret name');
  });
});

describe('a stored secret', () => {
  it('is a JSON object of named strings; nothing stored yet is none', () => {
    expect(parseSecretObject('s', `{"A": "${VALUE}"}`)).toEqual({ A: VALUE });
    expect(parseSecretObject('s', undefined)).toEqual({});
    expect(parseSecretObject('s', '')).toEqual({});
  });

  it('that is anything else is SECRET_MALFORMED, naming the secret and never a value', () => {
    expect(codeOf(() => parseSecretObject('clawfleet/demo/agents/fran', VALUE))).toEqual({
      code: 'SECRET_MALFORMED',
      message: 'secret "clawfleet/demo/agents/fran" is not a JSON object of named values',
    });
    for (const text of [`["${VALUE}"]`, `{"A": 1, "B": "${VALUE}"}`, 'null', `"${VALUE}"`]) {
      expect(
        codeOf(() => parseSecretObject('s', text)),
        text,
      ).toEqual({ code: 'SECRET_MALFORMED', message: 'secret "s" must be a JSON object whose values are strings' });
    }
  });

  it('in a secrets file is read the same way by local mode and by `clawfleet secrets`', () => {
    expect(parseSecretsFile('f.json', `{"x": ${VALUE}`)).toEqual({ ok: false, notJson: true, problem: 'f.json is not JSON' });
    expect(parseSecretsFile('f.json', `["${VALUE}"]`)).toEqual({ ok: false, notJson: false, problem: 'f.json must be an object of secrets by name' });
    const file = parseSecretsFile('f.json', JSON.stringify({ good: { A: VALUE }, bad: { A: 1 } }));
    if (!file.ok) throw new Error(file.problem);
    expect(secretInFile('f.json', file.secrets, 'good')).toEqual({ A: VALUE });
    expect(secretInFile('f.json', file.secrets, 'absent')).toEqual({});
    expect(codeOf(() => secretInFile('f.json', file.secrets, 'bad'))).toEqual({
      code: 'SECRET_MALFORMED',
      message: 'secret "f.json: bad" must be a JSON object whose values are strings',
    });

    const dir = tempDir('cf-secrets-file-');
    const path = join(dir, 'secrets.json');
    writeFileSync(path, JSON.stringify({ good: { A: VALUE }, bad: [VALUE] }));
    // Local mode reads every secret at start: a bad one stops it, named, without its value.
    expect(codeOf(() => new FileSecretStore(path))).toEqual({
      code: 'SECRET_MALFORMED',
      message: `secret "${path}: bad" must be a JSON object whose values are strings`,
    });
  });
});

describe('the secrets an agent needs', () => {
  const config = parseConfig({
    fleet: 'demo',
    agents: {
      defaults: { runtime: { cpus: 0.25, memoryMb: 512 } },
      list: [
        {
          id: 'fran',
          model: { primary: 'anthropic/claude-sonnet-4-5', fallbacks: ['openai/gpt-4.1-mini', 'bedrock/nova'] },
          secrets: ['GRAPH_TOKEN'],
          mcp: {
            servers: {
              files: { command: 'mcp-files', env: { FILES_TOKEN: 'FILES_TOKEN' } },
              wiki: { url: 'https://wiki.example/mcp', headers: { authorization: 'WIKI_TOKEN' } },
            },
          },
        },
      ],
    },
    models: {
      providers: {
        anthropic: { api: 'anthropic-messages', apiKeySecret: 'ANTHROPIC_API_KEY' },
        openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY' },
        bedrock: { api: 'bedrock-converse' },
      },
    },
  });
  const fran = runtimeConfigFor(config, 'fran');

  it('are its own names, its models’ keys (primary and fallbacks) and its MCP servers’ credentials', () => {
    expect(secretsNeeded(fran, { modelKeys: true })).toEqual([
      { name: 'GRAPH_TOKEN', usedBy: 'agents.list[].secrets' },
      { name: 'ANTHROPIC_API_KEY', usedBy: 'the API key of provider "anthropic"' },
      { name: 'OPENAI_API_KEY', usedBy: 'the API key of provider "openai"' },
      { name: 'FILES_TOKEN', usedBy: 'MCP server "files"' },
      { name: 'WIKI_TOKEN', usedBy: 'MCP server "wiki"' },
    ]);
    expect(secretsNeeded(fran, { modelKeys: false }).map((n) => n.name)).toEqual(['GRAPH_TOKEN', 'FILES_TOKEN', 'WIKI_TOKEN']);
  });

  it('are what the runtime waits for at start and what `clawfleet secrets list` expects', async () => {
    const missing = missingSecrets(fran, { GRAPH_TOKEN: VALUE, WIKI_TOKEN: VALUE }, { modelKeys: true });
    expect(missing.map((m) => m.name)).toEqual(['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'FILES_TOKEN']);
    expect(JSON.stringify(missing)).not.toContain(VALUE);
    const dir = tempDir('cf-secrets-needed-');
    writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
    writeFileSync(join(dir, 'clawfleet.secrets.json'), JSON.stringify({ 'clawfleet/demo/agents/fran': { GRAPH_TOKEN: VALUE, WIKI_TOKEN: VALUE } }));
    const io = captureIO({ cwd: dir });
    expect(await runCli(['secrets', 'list', '--agent', 'fran'], io)).toBe(0);
    expect(io.outText()).toContain('expected by the config but missing: ANTHROPIC_API_KEY, FILES_TOKEN, OPENAI_API_KEY');
    expect(io.outText()).not.toContain(VALUE);
  });
});
