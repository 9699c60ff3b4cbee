/**
 * The Node.js versions mds runs on, checked when it starts (the `mds` command and
 * `import 'mds'`), so that another version fails with this message rather than deep
 * in a native module. The range is package.json's `engines.node` (a test holds them
 * equal). Why these: uWebSockets.js (the `uws-pack` build) ships binaries for Node's
 * module ABIs 108, 115, 120 and 127 (Node 18 to 22) and none for Node 24's (137);
 * Node 18 and 21 are past their end of life; vitest 4 and the `require` of ES modules
 * need 20.19 or 22.12.
 */
export const SUPPORTED_NODE = '^20.19.0 || ^22.12.0';

/** The least minor of each major supported (SUPPORTED_NODE, spelled as numbers). */
const LEAST_MINOR: Readonly<Record<number, number>> = { 20: 19, 22: 12 };

/** null when `version` (`v20.19.0`) is supported, else the message saying why not. */
export function unsupportedNode(version: string): string | null {
  const match = /^v?(\d+)\.(\d+)\./.exec(version);
  const least = match ? LEAST_MINOR[Number(match[1])] : undefined;
  if (least !== undefined && Number(match![2]) >= least) return null;
  return `mds needs Node.js ${SUPPORTED_NODE} (Node 20 or 22); this is Node.js ${version}. Install a supported version (for example with nvm: nvm install 22).`;
}

// Checked as this module is evaluated: entry points import it before anything else.
const problem = unsupportedNode(process.version);
if (problem !== null) throw new Error(problem);
