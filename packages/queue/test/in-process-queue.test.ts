import { createInProcessQueue } from "../src/index.ts";
import { describeJobQueueContract } from "./support/queue-contract.ts";
import { testJobs } from "./support/test-catalog.ts";

describeJobQueueContract("in-process", async () => createInProcessQueue({ catalog: testJobs }));
