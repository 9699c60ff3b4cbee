import './terminal.css';
import { startTerminal } from './app.ts';
import { discoveryPage } from './discovery.ts';
import { mountSearch } from './search.ts';
import { tokenPage } from './token.ts';
import { walletPage } from './wallet.ts';

/**
 * The web terminal's entry point (bundled by transport/terminal/build.ts into
 * /terminal/app.js): the page the path names. `/`, `/t/{token}`, `/w/{wallet}`.
 */
const terminal = startTerminal();
mountSearch(terminal);
const [, section, address] = location.pathname.split('/');
if (section === 't' && address) void tokenPage(terminal, address);
else if (section === 'w' && address) void walletPage(terminal, address);
else discoveryPage(terminal);
