// Runtime defaults that the control plane's side needs to know too (the cost estimate
// counts the runtime's idle long polls), kept in one place.

/** Sessions whose turns a runtime runs at once; each keeps its own long poll (CLAWFLEET_MAX_SESSIONS). */
export const DEFAULT_MAX_SESSIONS = 4;
