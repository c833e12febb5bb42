// Reads vitest's JSON results (the first run and, when some files failed, their one rerun) and prints
// what failed and the final line "tests: N passed, M failed". A file that failed on the first run
// counts by its rerun; each such file is named, with its first run's failures, so a flaky check
// stays visible. Exit status: 1 when anything failed after the rerun or a step before the tests did.
import { existsSync, readFileSync } from "node:fs";
import { relative } from "node:path";

const [firstFile, rerunFile, stepsFailed, firstExit, rerunExit] = process.argv.slice(2);
const read = (f) => {
  try {
    return JSON.parse(readFileSync(f, "utf8"));
  } catch {
    return null;
  }
};
const rel = (f) => relative(process.cwd(), f);
const tally = (file) => {
  let passed = 0;
  let failed = 0;
  const failures = [];
  for (const a of file.assertionResults ?? []) {
    if (a.status === "passed") passed++;
    else if (a.status === "failed") {
      failed++;
      failures.push(`${a.fullName}: ${String(a.failureMessages?.[0] ?? "").split("\n")[0].slice(0, 300)}`);
    }
  }
  // A file that failed without a failed test (a hook or an import threw) is one failure.
  if (file.status === "failed" && failed === 0) {
    failed = 1;
    failures.push(`(the file itself): ${String(file.message ?? "").split("\n")[0].slice(0, 300)}`);
  }
  return { passed, failed, failures };
};

const first = read(firstFile);
let passed = 0;
let failed = 0;
if (!first) {
  console.log(`no test results in ${firstFile}: the test run did not finish`);
  failed = 1;
} else {
  const rerun = rerunFile && existsSync(rerunFile) ? read(rerunFile) : null;
  const rerunByName = new Map((rerun?.testResults ?? []).map((f) => [f.name, f]));
  for (const file of first.testResults ?? []) {
    const t = tally(file);
    const again = t.failed > 0 ? rerunByName.get(file.name) : undefined;
    if (t.failed > 0) {
      console.log(`FAILED ${rel(file.name)}${again ? " (first run)" : ""}`);
      for (const f of t.failures) console.log(`  - ${f}`);
    }
    if (again) {
      const r = tally(again);
      console.log(
        r.failed === 0
          ? `  passed on its rerun (${r.passed} tests): counted by the rerun`
          : `  failed again on its rerun: ${r.failed} failed`,
      );
      for (const f of r.failures) console.log(`  - rerun: ${f}`);
      passed += r.passed;
      failed += r.failed;
    } else {
      passed += t.passed;
      failed += t.failed;
    }
  }
  if ((first.testResults ?? []).length === 0) failed += 1;
  // vitest failed the run with every test passing (an unhandled error between tests): one failure.
  const anyFailedFile = (first.testResults ?? []).some((f) => tally(f).failed > 0);
  if (Number(firstExit) !== 0 && !anyFailedFile) {
    console.log(`vitest exited ${firstExit} with no failed test: an unhandled error, see above`);
    failed += 1;
  } else if (Number(rerunExit) !== 0 && rerun && (rerun.testResults ?? []).every((f) => tally(f).failed === 0)) {
    console.log(`the rerun exited ${rerunExit} with no failed test: an unhandled error, see above`);
    failed += 1;
  }
}
if (Number(stepsFailed) !== 0) {
  console.log("a step before the tests failed (typecheck, lint or unused-code check): see above");
  failed += 1;
}
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
