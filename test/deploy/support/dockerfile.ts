/** A Dockerfile's instructions, for the checks that run without a Docker engine. */

export interface Instruction {
  op: string;
  args: string;
  stage: string;
  index: number;
}

/** Dockerfile -> instructions (continuations joined, comments dropped), each tagged with its stage. */
export function parseDockerfile(text: string): { instructions: Instruction[]; args: Record<string, string> } {
  const logical: string[] = [];
  let cur = "";
  for (const raw of text.split("\n")) {
    const line = raw.trimEnd();
    if (cur === "" && /^\s*#/.test(line)) continue;
    if (line.endsWith("\\")) {
      cur += `${line.slice(0, -1)} `;
      continue;
    }
    cur += line;
    if (cur.trim() !== "") logical.push(cur.trim());
    cur = "";
  }
  const args: Record<string, string> = {};
  let stage = "";
  const instructions = logical.map((l, index) => {
    const [, op, rest] = /^(\w+)\s+([\s\S]*)$/.exec(l)!;
    const upper = op!.toUpperCase();
    if (upper === "ARG" && stage === "") {
      const [k, v] = rest!.split("=");
      args[k!.trim()] = (v ?? "").trim();
    }
    if (upper === "FROM") stage = / AS (\S+)$/i.exec(rest!)?.[1] ?? `#${index}`;
    return { op: upper, args: rest!, stage, index };
  });
  return { instructions, args };
}

/** `ENV` of one stage as a map (the `KEY=value KEY2=value2` form). */
export function stageEnv(text: string, stage: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of parseDockerfile(text).instructions.filter((x) => x.op === "ENV" && x.stage === stage)) {
    for (const m of i.args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) out[m[1]!] = m[2]!.replace(/^"|"$/g, "");
  }
  return out;
}
