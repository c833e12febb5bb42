/** The Hono context variables every request carries (set by the request-context and auth middleware). */
import type { Logger } from "pino";

export interface AuthedTenant {
  tenantId: string;
  keyId: string;
}

export interface AppEnv {
  Variables: {
    requestId: string;
    log: Logger;
    /** Set by tenant auth; absent on public and admin routes. */
    tenant?: AuthedTenant;
    /** The session a route works on, for the wide event. */
    sessionId?: string;
    /** The route pattern for the wide event and metrics labels (set once matched). */
    routeName?: string;
    /** A short error code for the wide event when the request failed. */
    errorCode?: string;
  };
}
