// The CDK app: `npx cdk synth` / `npx cdk deploy` (cdk.json runs this file with tsx).
// Context: -c config=<path to clawfleet.json> (default clawfleet.json); see app-options.ts.
import { App } from 'aws-cdk-lib';
import { loadConfigFile } from '../../shared/config/load.ts';
import { readAppOptions } from '../app-options.ts';
import { buildFleet } from '../fleet-app.ts';

const app = new App();
const options = readAppOptions((key) => app.node.tryGetContext(key));
buildFleet(app, loadConfigFile(options.configPath), options);
app.synth();
