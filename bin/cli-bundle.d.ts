// Types of bin/cli-bundle.js (plain JavaScript, so the bin starts without a TypeScript loader).
import type { BuildOptions } from 'esbuild';

export const BUNDLE_DIR: string;
export function freshBundle(dir?: string): string | undefined;
export function bundleOptions(outdir: string): BuildOptions & { metafile: true };
export function buildBundle(dir?: string): Promise<string>;
