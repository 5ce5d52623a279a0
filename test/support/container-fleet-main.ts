// A local fleet with --containers in a process of its own (`node --import tsx` this file
// <dir> <runtime image>), for a test to SIGKILL: it starts the fleet on <dir>'s
// clawfleet.json and secrets.json with the given image as the runtime stage, and prints
// `running` once every runtime runs; it never stops by itself.
import { startLocalFleet } from '../../local/fleet.ts';
import { fleetOptionsIn, untilRunning } from './local-fleet.ts';

const [dir, image] = process.argv.slice(2);
if (!dir || !image) throw new Error('usage: container-fleet-main.ts <dir> <runtime image>');
const fleet = await startLocalFleet({
  ...fleetOptionsIn(dir),
  runtimes: 'containers',
  runtimeImages: { runtime: image },
});
await untilRunning(
  fleet,
  fleet.cp.config.agents.list.map((a) => a.id),
  180_000,
);
process.stdout.write('running\n');
