// Runtime defaults that the control plane's side needs to know too (the cost estimate
// counts the runtime's idle long polls; local mode's box shows the runtime its Chromium),
// kept in one place.

/** Where the runtime image's browser variant has Chromium (Debian's package); tools.browser.executablePath overrides it. */
export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/** Sessions whose turns a runtime runs at once; each keeps its own long poll (CLAWFLEET_MAX_SESSIONS). */
export const DEFAULT_MAX_SESSIONS = 4;
