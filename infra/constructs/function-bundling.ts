// How every control-plane function is bundled: the esbuild settings the CDK app hands to
// NodejsFunction (control-functions.ts), and the same build for the bundle benchmark and the
// bundle test, which must not load the CDK to read them.
import type { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { BuildOptions } from 'esbuild';

/** ESM needs `require` for the CommonJS dependencies esbuild inlines. */
const ESM_REQUIRE_BANNER = "import { createRequire as __cfCreateRequire } from 'node:module'; const require = __cfCreateRequire(import.meta.url);";

export const BUILD_SETTINGS = {
  format: 'esm' as OutputFormat.ESM,
  target: 'node24',
  minify: true,
  sourceMap: false,
  banner: ESM_REQUIRE_BANNER,
  // Bundled, not taken from the runtime: a pinned SDK version, one file to load, and the
  // emulator's Lambda (the host's node) has no SDK to offer.
  bundleAwsSDK: true,
  // ...but not the credential sources a function never has. Lambda puts the role's
  // credentials in the environment, the SDK's chain takes them from there first, and the
  // links it would import only after that (SSO, profiles, credential processes, web
  // identity tokens, with the STS and SSO clients they bring) are a quarter of a bundle.
  externalModules: [
    '@aws-sdk/credential-provider-sso',
    '@aws-sdk/credential-provider-ini',
    '@aws-sdk/credential-provider-process',
    '@aws-sdk/credential-provider-web-identity',
  ],
  mainFields: ['module', 'main'],
} as const;

/** The same build as the CDK app's, for esbuild's API (the benchmark, the bundle test). */
export function esbuildOptions(entry: string): BuildOptions {
  return {
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: BUILD_SETTINGS.format,
    target: BUILD_SETTINGS.target,
    minify: BUILD_SETTINGS.minify,
    sourcemap: BUILD_SETTINGS.sourceMap,
    mainFields: [...BUILD_SETTINGS.mainFields],
    external: [...BUILD_SETTINGS.externalModules],
    banner: { js: BUILD_SETTINGS.banner },
    logLevel: 'error',
  };
}
