// The send_file scenario both deployments run (test/integration/local-media on `npm start`'s
// fleet, media-aws on MiniStack): the agent sends a photo and a document, its runtime is
// SIGKILLed while the model is asked what to say next, the turn is done again — and Telegram
// still gets each file once. How each kills its runtime is its own; the script and the check are here.
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { writeAgentFile } from './agent-files.ts';
import type { FakeModel } from './fake-model.ts';
import type { FakeTelegram, UploadedPart } from './fake-telegram.ts';

export const CHART_ASK = 'send me the chart';
export const CHART_ANSWER = 'Here is your chart.';

export interface ChartFiles {
  png: Buffer;
  pdf: Buffer;
}

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/**
 * Puts out/chart.png and out/figures.pdf in `workspace` and scripts `model`: send both, then hang
 * (the runtime is killed here), then, redone, send both again and answer CHART_ANSWER.
 */
export function scriptChartAndFigures(model: FakeModel, workspace: string): ChartFiles {
  const files = { png: Buffer.from('\x89PNG a chart', 'latin1'), pdf: Buffer.from('%PDF-1.4 the figures') };
  writeAgentFile(workspace, 'out/chart.png', files.png);
  writeAgentFile(workspace, 'out/figures.pdf', files.pdf);
  const sendIt = {
    toolCalls: [
      { name: 'send_file', arguments: { path: 'out/chart.png', caption: 'your chart' } },
      { name: 'send_file', arguments: { path: 'out/figures.pdf' } },
    ],
  };
  model.script(sendIt, { text: 'never seen', delayMs: 60_000 }, sendIt, { text: CHART_ANSWER });
  return files;
}

/**
 * The turn was done twice (the model asked to send the files twice: four requests carry the
 * ask) and each file reached `chatId` once, whole; `photosFrom`/`documentsFrom`/`requestsFrom`
 * are the counts before the ask.
 */
export function expectEachFileOnce(
  o: { model: FakeModel; tg: FakeTelegram; chatId: number; requestsFrom: number; photosFrom: number; documentsFrom: number } & ChartFiles,
): void {
  const asks = o.model
    .requests()
    .slice(o.requestsFrom)
    .filter((r) => JSON.stringify(r.body).includes(CHART_ASK));
  expect(asks).toHaveLength(4);
  const photos = o.tg.calls('sendPhoto').slice(o.photosFrom);
  expect(photos).toHaveLength(1);
  expect(photos[0]!.params).toMatchObject({ chat_id: o.chatId, caption: 'your chart' });
  expect(photos[0]!.params.photo as UploadedPart).toEqual({ filename: 'chart.png', size: o.png.length, type: 'image/png', sha256: sha(o.png) });
  const docs = o.tg.calls('sendDocument').slice(o.documentsFrom);
  expect(docs).toHaveLength(1);
  expect(docs[0]!.params.document as UploadedPart).toEqual({ filename: 'figures.pdf', size: o.pdf.length, type: 'application/pdf', sha256: sha(o.pdf) });
}
