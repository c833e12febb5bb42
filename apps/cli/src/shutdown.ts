/** Resolves on the first SIGTERM or SIGINT, so long-running commands can shut down gracefully. */
export function waitForShutdown(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off("SIGTERM", on);
      process.off("SIGINT", on);
      resolve(signal);
    };
    process.on("SIGTERM", on);
    process.on("SIGINT", on);
  });
}
