/**
 * When the client's background work runs: the capture outbox's preparing, spooling and sending, and an
 * automatic trigger's flush request build. None of it may run inside the agent's own synchronous work;
 * by default it runs on the next turn of the event loop. A host that knows when its agent waits on the
 * model (the pi extension: once pi has handed the next LLM request to its provider) passes its own
 * schedule, so that this work does not sit between a tool's end and the next request, where every
 * millisecond of it adds to the agent's step.
 */
export type ScheduleBackground = (work: () => void) => void;

export const nextEventLoopTurn: ScheduleBackground = (work) => {
  setImmediate(work);
};
