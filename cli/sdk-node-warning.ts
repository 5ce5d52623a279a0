// The AWS SDK warns, on every AWS command under Node 20, in eight lines that its releases
// after the first week of January 2027 will need Node 22 (process.emitWarning, from
// @aws-sdk/core's emitWarningIfUnsupportedVersion). That warning alone is replaced by one line
// of ours that says what it means here; every other warning passes through as Node prints it.

/** How the SDK's warning text starts; nothing else is held back. */
const SDK_WARNING = 'NodeVersionSupportWarning:';

/** Our one line for it: the Node in use, and the plan. */
export function nodePlanLine(nodeVersion: string): string {
  return (
    `clawfleet: note: on Node ${nodeVersion.replace(/^v/, '')} the AWS SDK pinned in package-lock.json works; SDK releases from ` +
    'January 2027 need Node ≥ 22, and clawfleet will require Node 22 before it takes one (its Lambdas and runtime image run Node 24 already)'
  );
}

type EmitWarning = (warning: string | Error, ...rest: unknown[]) => void;

/**
 * Wraps `target.emitWarning` (the process's) so the SDK's Node-version warning is said once as
 * nodePlanLine through `say`; returns the undo.
 */
export function replaceSdkNodeWarning(target: { emitWarning: EmitWarning }, say: (line: string) => void): () => void {
  const original = target.emitWarning;
  let said = false;
  target.emitWarning = function emitWarning(warning: string | Error, ...rest: unknown[]) {
    if (typeof warning === 'string' && warning.startsWith(SDK_WARNING)) {
      if (!said) say(nodePlanLine(/You are running node (v?\d+(?:\.\d+)*)/.exec(warning)?.[1] ?? 'this version'));
      said = true;
      return;
    }
    return original.call(target, warning, ...rest);
  };
  return () => {
    target.emitWarning = original;
  };
}
