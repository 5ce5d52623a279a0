// `npm start`: the same as `clawfleet start`, with the same options.
import { main } from '../cli/main.ts';

await main(['start', ...process.argv.slice(2)]);
