// The CDK app: `npx cdk synth` / `npx cdk deploy` (cdk.json runs this file with tsx).
// Context: -c config=<path to clawfleet.json> (default clawfleet.json); see app-options.ts.
import { App } from 'aws-cdk-lib';
import { loadConfigFile } from '../../shared/config/load.ts';
import { ConfigError } from '../../shared/errors.ts';
import { readAppOptions } from '../app-options.ts';
import { buildFleet } from '../fleet-app.ts';

const app = new App();
try {
  const options = readAppOptions((key) => app.node.tryGetContext(key));
  buildFleet(app, loadConfigFile(options.configPath), options);
} catch (err) {
  // An invalid config is the user's to fix: every problem with its path, no stack trace.
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(1);
}
app.synth();
