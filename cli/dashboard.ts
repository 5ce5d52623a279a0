// `clawfleet dashboard [--aws]`: a link that signs a browser in to the dashboard for ten
// minutes, so nobody copies the token out of a file: the running local fleet makes it with
// the token it signs in with; for the deployed fleet it is made here from the dashboard's
// secret and the dashboard's Function URL. The link's code is not the token (an HMAC keyed by
// it, shared/dashboard/auth.ts), and this prints neither the token nor any secret.
import { z } from 'zod';
import { controlPlaneStackName, dashboardSecretName } from '../shared/config/names.ts';
import { DASHBOARD_TOKEN_NAME, MIN_DASHBOARD_TOKEN_CHARS, SIGN_IN_LINK_TTL_MS, signInLink, signInLinkCode } from '../shared/dashboard/auth.ts';
import { parseSecretObject } from '../shared/secrets/secret-values.ts';
import { awsSettings, type AwsSettings } from './aws-env.ts';
import { awsErrorText } from './aws-errors.ts';
import { CliError, COMMON_HELP, commonOptions, EXIT, parse, str, type Command } from './command.ts';
import { loadFleetConfig } from './fleet-config.ts';
import { reachLocalFleet } from './local-admin.ts';

const HELP = `Usage: clawfleet dashboard [--aws]

Prints a link that signs your browser in to the dashboard, good for ${SIGN_IN_LINK_TTL_MS / 60_000} minutes.
The sign-in code rides after '#', which a browser never sends to a server (so it lands in no
request log); the page takes it off the address bar and out of the tab's history as it signs in
(a browser's own history list may still show it until it lapses).
Whoever opens the link before it lapses is signed in: pass it on as you would the token.
Without --aws: the running fleet's dashboard (\`clawfleet start\`, \`npm start\`); with it, the
deployed dashboard's Function URL, the code made with DASHBOARD_TOKEN from Secrets Manager.

${COMMON_HELP}`;

const CodeSchema = z.object({ code: z.string(), expiresAt: z.number() });

export const dashboardCommand: Command = {
  async run(args, io) {
    const p = parse(args, commonOptions, HELP, io, { min: 0, max: 0 });
    if (!p) return EXIT.ok;
    let where: string;
    let link: { url: string; expiresAt: number };
    if (p.values.aws) {
      const config = loadFleetConfig(str(p.values.config)!, io);
      const settings = awsSettings(io);
      const { awsWhere } = await import('./aws-where.ts');
      where = `fleet "${config.fleet}" ${await awsWhere(config.fleet, settings)}`;
      link = await deployedLink(config.fleet, settings, where);
    } else {
      const fleet = await reachLocalFleet(str(p.values.state)!, io);
      where = fleet.where;
      const { code, expiresAt } = await fleet.admin.post('/admin/dashboard/sign-in-link', {}, CodeSchema);
      link = { url: signInLink(fleet.admin.url, code), expiresAt };
    }
    const until = new Date(link.expiresAt).toTimeString().slice(0, 5);
    io.out(`${where}: open this to sign in to the dashboard (until ${until}, ${SIGN_IN_LINK_TTL_MS / 60_000} minutes):`);
    io.out(`  ${link.url}`);
    return EXIT.ok;
  },
};

/** The deployed dashboard's link: its Function URL from the control plane stack, the code made with the token in its secret. */
async function deployedLink(fleet: string, settings: AwsSettings, where: string): Promise<{ url: string; expiresAt: number }> {
  const { dashboardLinkPorts } = await import('../shared/adapters/aws/cli-dashboard-link-ports.ts');
  const ports = dashboardLinkPorts(settings);
  const stack = controlPlaneStackName(fleet);
  const outputs = await ports.outputs(stack).catch((err: unknown) => {
    throw new CliError(EXIT.failed, awsErrorText(`cannot read stack ${stack}`, err, settings));
  });
  if (!outputs) throw new CliError(EXIT.failed, `${where} has no stack ${stack}: deploy the fleet first (npx clawfleet deploy)`);
  const url = outputs.DashboardUrl;
  if (!url) throw new CliError(EXIT.failed, `stack ${stack} of ${where} has no DashboardUrl output; deploy the fleet again (npx clawfleet deploy)`);
  const secret = dashboardSecretName(fleet);
  // A secret with no value yet is one without a token: the stack creates it empty.
  const text = await ports.secrets.text(secret).catch((err: unknown) => {
    if ((err as Error).name === 'ResourceNotFoundException') return undefined;
    throw new CliError(EXIT.failed, awsErrorText(`cannot read secret ${secret}`, err, settings));
  });
  const token = text === undefined ? undefined : parseSecretObject(secret, text)[DASHBOARD_TOKEN_NAME];
  if (!token || token.length < MIN_DASHBOARD_TOKEN_CHARS) {
    throw new CliError(
      EXIT.failed,
      `the dashboard has ${token ? `a ${DASHBOARD_TOKEN_NAME} shorter than ${MIN_DASHBOARD_TOKEN_CHARS} characters, which it refuses` : `no ${DASHBOARD_TOKEN_NAME}`} in ${secret}; ` +
        `set one with: openssl rand -hex 32 | npx clawfleet secrets set ${DASHBOARD_TOKEN_NAME} --control dashboard --aws`,
    );
  }
  const { code, expiresAt } = signInLinkCode(token, fleet, Date.now());
  return { url: signInLink(url, code), expiresAt };
}
