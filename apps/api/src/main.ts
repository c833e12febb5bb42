/** Entry point: `tsx apps/api/src/main.ts`. Starts the API from the env and shuts down on SIGTERM/SIGINT. */
import { startServer } from "./server.ts";

const server = await startServer();
let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
