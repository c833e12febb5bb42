// The local service's executable from source: plain Node, with tsx registered as resolved from this
// package (a dev dependency of the source checkout, never the caller's cwd), so a client can start it with
// `node <this file>`. Compiled layouts run bundled JavaScript and ship no tsx.
import { register } from "tsx/esm/api";

register();
await import("../src/local-service-main.ts");
