// One question on the terminal, one line back; a secret answer is read without echo (the
// terminal shows nothing as it is typed). Questions go to stderr, so stdout stays the
// command's output.
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

export async function terminalPrompt(question: string, opts: { secret?: boolean } = {}): Promise<string> {
  process.stderr.write(question);
  let muted = false;
  // readline echoes through its output stream: muted for a secret once the question is out.
  const output = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  muted = opts.secret === true;
  try {
    return await new Promise<string>((resolve, reject) => {
      rl.question('', resolve);
      rl.once('close', () => reject(new Error('standard input closed before an answer')));
    });
  } finally {
    rl.close();
    if (opts.secret) process.stderr.write('\n');
  }
}
