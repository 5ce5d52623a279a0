// `clawfleet pairing list|approve <code>`: senders waiting for the owner's approval to
// talk to a bot (dmPolicy "pairing"), through the control plane's PairingStore port:
// the local fleet's SQLite store, or the registry table on AWS.
import { PairingRecordSchema } from '../shared/control/access.ts';
import { z } from 'zod';
import type { DynamoPairingStore } from '../shared/adapters/aws/dynamo-pairing-store.ts';
import { tableNames } from '../shared/config/names.ts';
import type { PairingRecord } from '../shared/ports.ts';
import { awsSettings } from './aws-env.ts';
import { awsErrorText } from './aws-errors.ts';
import { ago, choose, CliError, COMMON_HELP, commonOptions, EXIT, parse, plural, str, table, type Command } from './command.ts';
import { loadFleetConfig } from './fleet-config.ts';
import { reachLocalFleet, type LocalAdmin } from './local-admin.ts';

const HELP = `Usage: clawfleet pairing list [--aws]
       clawfleet pairing approve <CODE> [--aws]

list     pending pairing requests: account, sender, code, when it lapses (codes last an hour)
approve  lets the sender with this code talk to the account's bot from now on

${COMMON_HELP}`;

export const pairingCommand: Command = {
  async run(args, io) {
    const [sub, ...rest] = args;
    if (sub === '--help' || sub === '-h') return (io.out(HELP), EXIT.ok);
    choose(sub, ['list', 'approve'], HELP);
    const p = parse(rest, commonOptions, HELP, io, sub === 'approve' ? { min: 1, max: 1 } : { min: 0, max: 0 });
    if (!p) return EXIT.ok;
    const now = Date.now();
    let aws: DynamoPairingStore | undefined;
    let local: LocalAdmin | undefined;
    let where: string;
    const settings = awsSettings(io);
    if (p.values.aws) {
      const config = loadFleetConfig(str(p.values.config)!, io);
      // The AWS SDK loads only for --aws.
      const [{ dynamoDocumentClient }, { DynamoPairingStore }, { awsWhere }] = await Promise.all([
        import('../shared/adapters/aws/clients.ts'),
        import('../shared/adapters/aws/dynamo-pairing-store.ts'),
        import('./aws-where.ts'),
      ]);
      where = `fleet "${config.fleet}" ${await awsWhere(config.fleet, settings)}`;
      aws = new DynamoPairingStore(dynamoDocumentClient(settings), tableNames(config.fleet).registry);
    } else {
      ({ admin: local, where } = await reachLocalFleet(str(p.values.state)!, io));
    }
    const onAws = async <T>(what: string, fn: (store: DynamoPairingStore) => Promise<T>): Promise<T> => {
      try {
        return await fn(aws!);
      } catch (err) {
        throw new CliError(EXIT.failed, awsErrorText(what, err, settings));
      }
    };

    if (sub === 'list') {
      const pending: PairingRecord[] = aws
        ? await onAws('cannot list pairings', (s) => s.listPending(now))
        : (await local!.get('/admin/pairings', z.object({ pending: z.array(PairingRecordSchema) }))).pending;
      if (!pending.length) return (io.out(`${where}: no pending pairing requests`), EXIT.ok);
      const rows = [['ACCOUNT', 'SENDER', 'NAME', 'CODE', 'ASKED', 'LAPSES IN']];
      for (const r of pending)
        rows.push([r.accountId, r.peerId, r.displayName ?? '—', r.code, ago(r.createdAt, now), `${Math.max(0, Math.round((r.expiresAt - now) / 60_000))}m`]);
      io.out(`${where}: ${plural(pending.length, 'pending pairing request')}`);
      io.out(table(rows));
      return EXIT.ok;
    }

    const code = p.positionals[0]!.toUpperCase();
    let approved: PairingRecord | undefined;
    if (aws) {
      approved = await onAws(`cannot approve ${code}`, (s) => s.approve(code, now));
      if (!approved) throw new CliError(EXIT.failed, `no pending pairing with code ${code} in ${where} (codes lapse after an hour)`);
    } else {
      approved = (await local!.post('/admin/pairings/approve', { code }, z.object({ approved: PairingRecordSchema }))).approved;
    }
    io.out(`approved ${approved.displayName ?? approved.peerId} (telegram user ${approved.peerId}) for account ${approved.accountId} of ${where}`);
    return EXIT.ok;
  },
};
