/**
 * Types for the part of autocannon 8 that bench:api uses (the package ships none and there is no
 * @types package in the catalog); lets the root tsconfig typecheck apps/<app>/bench.
 */
declare module "autocannon" {
  namespace autocannon {
    interface RequestParams {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    }
    interface Request extends RequestParams {
      setupRequest?: (req: RequestParams, context: Record<string, unknown>) => RequestParams;
      onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      amount?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      requests?: Request[];
    }
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p99: number;
    }
    interface Result {
      requests: Histogram;
      latency: Histogram;
      throughput: Histogram;
      errors: number;
      timeouts: number;
      non2xx: number;
      duration: number;
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}
