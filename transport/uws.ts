import { HTTP_HEADER_BYTES_MAX } from '../engine/bounds.ts';
/**
 * The one place that loads uWebSockets.js. Other transport files import its runtime
 * values from here and only `import type` from 'uWebSockets.js'.
 *
 * Why: uWS caps the request line plus headers at UWS_HTTP_MAX_HEADERS_SIZE bytes
 * (default 4 KiB) and answers anything longer itself with a bare HTML 431, before any
 * handler runs. That cap is read once, when the native module is loaded, and there is
 * no API for it. With 4 KiB the configured `http.queryBytesMax` (default 8 KiB) could
 * never be reached and long queries would get no envelope. So the variable is set
 * here, unless the operator set it, before the dynamic import below loads the binary.
 * Queries up to the cap get our 400 naming `query`; only requests past it get uWS's 431.
 * @internal
 */


// The native library's only knob for it; an operator's own value wins.
process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= String(HTTP_HEADER_BYTES_MAX);

/** The cap the binary loads with (uWS falls back to 4 KiB for a value it cannot parse). */
export const httpHeaderBytesCap = Number.parseInt(process.env.UWS_HTTP_MAX_HEADERS_SIZE, 10) || 4096;

const uWS = await import('uWebSockets.js');

export const App = uWS.App;
export const us_listen_socket_close = uWS.us_listen_socket_close;
export const us_socket_local_port = uWS.us_socket_local_port;
/**
 * permessage-deflate off (the /ws default: frames are small JSON and compression costs
 * CPU per socket). The package's typings declare the compression options as types only;
 * the binary exports them as numbers.
 */
export const DISABLED: number = (uWS as unknown as { DISABLED: number }).DISABLED;
