// ElasticMQ, a second SQS emulator for benchmarks: unlike MiniStack (which re-checks a
// waiting ReceiveMessage every 100 ms) it answers a waiting long poll as soon as a message
// arrives, as AWS SQS does, so it shows what long polling costs without an emulator tick.
// Installed on demand from Maven Central into .cache/elasticmq/<version>/ (needs java 8+
// and mvn), started on a free loopback port, spoken to over the AWS JSON protocol that the
// AWS SDK v3 uses (ElasticMQ has served it since 1.4.0).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './emulator.ts';

/** Pinned: 1.7.1's classes target Java 8, so the machine's Java 17 runs it. */
export const ELASTICMQ_VERSION = '1.7.1';
const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';
const root = fileURLToPath(new URL('..', import.meta.url));
const home = join(root, '.cache/elasticmq', ELASTICMQ_VERSION);
const lib = join(home, 'lib');

function requireTool(cmd: string, args: string[], what: string): void {
  const r = spawnSync(cmd, args, { stdio: 'ignore' });
  if (r.error || r.status !== 0)
    throw new Error(
      `ElasticMQ needs ${what} (\`${cmd}\` ${r.error ? 'not found' : `exited ${r.status}`}): install it, e.g. \`apt-get install ${cmd === 'mvn' ? 'maven' : 'openjdk-17-jre-headless'}\``,
    );
}

/** The server jar and its runtime dependencies, fetched by Maven into lib/ (a partial download never counts). */
function install(): void {
  if (existsSync(join(lib, `elasticmq-server_2.13-${ELASTICMQ_VERSION}.jar`))) return;
  requireTool('mvn', ['-v'], 'Maven');
  const started = performance.now();
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(home, 'pom.xml'),
    `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.bench</groupId><artifactId>elasticmq-install</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.elasticmq</groupId><artifactId>elasticmq-server_2.13</artifactId><version>${ELASTICMQ_VERSION}</version></dependency>
  </dependencies>
</project>
`,
  );
  const partial = join(home, 'lib.partial');
  rmSync(partial, { recursive: true, force: true });
  const r = spawnSync(
    'mvn',
    ['-q', '-B', '-f', join(home, 'pom.xml'), `${DEPENDENCY_PLUGIN}:copy-dependencies`, '-DincludeScope=runtime', `-DoutputDirectory=${partial}`],
    { encoding: 'utf8', timeout: 600_000 },
  );
  if (r.error || r.status !== 0) {
    throw new Error(
      `could not download ElasticMQ ${ELASTICMQ_VERSION} from Maven Central (mvn ${r.error?.message ?? `exited ${r.status}`}):\n${(r.stdout + r.stderr).slice(-2000)}`,
    );
  }
  renameSync(partial, lib);
  console.log(`ElasticMQ ${ELASTICMQ_VERSION} installed into ${home} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Starts ElasticMQ on 127.0.0.1; queue ARNs carry the given region and account, as the fleet's code expects. */
export async function elasticmq(opts: { region?: string; accountId?: string } = {}): Promise<{ endpoint: string; stop(): void }> {
  requireTool('java', ['-version'], 'Java 8 or newer');
  install();
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const conf = join(mkdtempSync(join(tmpdir(), 'cf-bench-elasticmq-')), 'elasticmq.conf');
  // application.conf (from the rest-sqs jar) holds the HTTP request timeout that a 20 s
  // long poll needs; -Dconfig.file replaces it unless included. This build has no stats UI
  // port (rest-stats) to clash with, only the SQS one.
  writeFileSync(
    conf,
    `include classpath("application.conf")
node-address { protocol = "http", host = "127.0.0.1", port = ${port}, context-path = "" }
rest-sqs { enabled = true, bind-port = ${port}, bind-hostname = "127.0.0.1", sqs-limits = strict }
aws { region = "${opts.region ?? 'us-east-1'}", accountId = "${opts.accountId ?? '000000000000'}" }
`,
  );
  const proc = spawn('java', [`-Dconfig.file=${conf}`, '-cp', join(lib, '*'), 'org.elasticmq.server.Main'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  let exited = false;
  proc.once('exit', () => (exited = true));
  const stop = () => {
    if (!exited) proc.kill('SIGTERM');
  };
  process.once('exit', stop);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && !exited) {
    const ok = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.ListQueues' },
      body: '{}',
    }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { endpoint, stop };
    await new Promise((r) => setTimeout(r, 200));
  }
  stop();
  throw new Error(`ElasticMQ ${ELASTICMQ_VERSION} did not answer at ${endpoint} ${exited ? 'and exited' : 'within 60 s'}:\n${output}`);
}
