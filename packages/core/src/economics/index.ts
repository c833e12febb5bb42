/** The economics of a flush: prices, learned cache reuse, the net value and the `roi` decision, the offline oracle. */
export * from "./cache-prices.ts";
export * from "./cache-reuse.ts";
export * from "./flush-value.ts";
export * from "./roi-policy.ts";
export * from "./flush-schedule.ts";
export * from "./chain-choice.ts";
