// Types of bin/bundles.js (plain JavaScript, so the bin starts without a TypeScript loader).
import type { BuildOptions } from 'esbuild';

export type BundleKind = 'cli' | 'runtime';
export const BUNDLES: Record<BundleKind, { dir: string; entry: string; options(outdir: string): Promise<BuildOptions>; config: string }>;
export function cliBundleOptions(outdir: string): BuildOptions;
export function freshBundle(kind: BundleKind, dir?: string): string | undefined;
export function buildBundle(kind: BundleKind, dir?: string): Promise<string>;
export function ensureBundle(kind: BundleKind): Promise<string | undefined>;
