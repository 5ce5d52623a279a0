// `clawfleet security audit`: names the risky settings of a fleet, as `openclaw security
// audit` does for a gateway — from the config, this machine (local mode) or the deployed
// control plane's tokens (--aws). Exit 1 when anything is high, so CI can gate on it.
import { resolve } from 'node:path';
import { awsSettings } from './aws-env.ts';
import { commonOptions, EXIT, parse, str, type Command, choose } from './command.ts';
import { loadFleetConfig } from './fleet-config.ts';
import { fileSecretTarget } from './secret-targets.ts';
import { auditConfig } from './security/config-risks.ts';
import { countBySeverity, formatFindings, sortFindings } from './security/findings.ts';
import { auditLocal, gatherLocalFacts } from './security/local-checks.ts';
import { auditTokens, gatherTokenFacts } from './security/token-checks.ts';

const HELP = `Usage: clawfleet security audit [--config clawfleet.json] [--secrets clawfleet.secrets.json] [--state .clawfleet] [--aws] [--json]

Names the settings that let someone reach what they should not, or that weaken a guard:
who may write to the bots and whether they share one conversation, groups open to all,
exec without a sandbox (or with an allowlist that runs anything), MCP servers outside the
sandbox, web_fetch allowed onto this machine, hooks that may choose a chat's session,
agent-to-agent limits; locally also a secrets file or state directory others can read,
runtimes run outside their box (runtime.localSandbox "off"), no working sandbox (boxed
runtimes do not start, exec stays off), and short tokens. Values are never printed.

  --config <path>    the fleet config (default clawfleet.json)
  --secrets <path>   the local secrets file (default clawfleet.secrets.json)
  --state <dir>      local mode's state directory (default .clawfleet)
  --aws              check the deployed fleet's tokens in Secrets Manager instead of this machine
  --json             the findings as JSON: { findings: [{ id, severity, where, title, detail, fix, byDesign? }], counts }

Exit codes: 0 no high finding, 1 at least one high finding, 2 usage, 3 invalid config.`;

export const securityCommand: Command = {
  async run(args, io) {
    const [sub, ...rest] = args;
    if (sub === '--help' || sub === '-h') {
      io.out(HELP);
      return EXIT.ok;
    }
    choose(sub, ['audit'], HELP);
    const p = parse(
      rest,
      {
        ...commonOptions,
        secrets: { type: 'string', default: 'clawfleet.secrets.json' },
        json: { type: 'boolean', default: false },
      },
      HELP,
      io,
    );
    if (!p) return EXIT.ok;
    const config = loadFleetConfig(str(p.values.config)!, io);
    const aws = p.values.aws === true;
    const secretsPath = resolve(io.cwd, str(p.values.secrets)!);
    const findings = [...auditConfig(config)];
    if (aws) {
      // The AWS SDK loads only for --aws.
      const { awsSecretTarget } = await import('./aws-secret-target.ts');
      findings.push(...auditTokens(config, await gatherTokenFacts(config, awsSecretTarget(awsSettings(io))), { aws: true }));
    } else {
      findings.push(...auditLocal(config, await gatherLocalFacts({ secrets: secretsPath, state: resolve(io.cwd, str(p.values.state)!) })));
      findings.push(...auditTokens(config, await gatherTokenFacts(config, fileSecretTarget(secretsPath)), { aws: false }));
    }
    const counts = countBySeverity(findings);
    io.out(p.values.json ? JSON.stringify({ findings: sortFindings(findings), counts }, null, 2) : formatFindings(findings));
    return counts.high > 0 ? EXIT.failed : EXIT.ok;
  },
};
