// Reads the conformance suite's results and scenarios.tsv, prints the scenario table, and exits
// non-zero when: the suite lists a server scenario scenarios.tsv does not classify (or the other
// way round), an applicable scenario has a failed check, has no successful check, or warns on a
// check scenarios.tsv does not expect.
//
// Usage: node evaluate.mjs SCENARIOS_TSV SUITE_LIST_FILE RESULTS_DIR
//   SUITE_LIST_FILE: the output of `conformance list --server`
//   RESULTS_DIR: one directory per applicable scenario, each holding the suite's -o output
import { readFileSync, readdirSync, existsSync } from "node:fs";
import { join } from "node:path";

const [tsv, listFile, resultsDir] = process.argv.slice(2);
if (!tsv || !listFile || !resultsDir) {
  console.error("usage: node evaluate.mjs SCENARIOS_TSV SUITE_LIST_FILE RESULTS_DIR");
  process.exit(2);
}

const rows = readFileSync(tsv, "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "" && !l.startsWith("#"))
  .map((l) => {
    const [name, verdict, warns, why] = l.split("\t");
    return { name, verdict, warns: warns === "-" ? [] : warns.split(","), why };
  });
const listed = [...readFileSync(listFile, "utf8").matchAll(/^\s+- ([a-z0-9-]+)/gm)].map((m) => m[1]);

const problems = [];
const known = new Set(rows.map((r) => r.name));
for (const s of listed) {
  if (!known.has(s)) problems.push(`${s}: the suite lists it, scenarios.tsv does not say whether it applies`);
}
for (const r of rows) {
  if (!listed.includes(r.name)) problems.push(`${r.name}: in scenarios.tsv, but the suite does not list it`);
  if (r.verdict !== "applies" && r.verdict !== "n/a") problems.push(`${r.name}: verdict ${r.verdict}, want applies or n/a`);
}

// checks reads the checks.json the suite wrote for one scenario (under a timestamped directory).
function checks(name) {
  const dir = join(resultsDir, name);
  if (!existsSync(dir)) return null;
  for (const sub of readdirSync(dir)) {
    const f = join(dir, sub, "checks.json");
    if (existsSync(f)) return JSON.parse(readFileSync(f, "utf8"));
  }
  return null;
}

const table = [["scenario", "applies", "passed", "failed", "warnings", "result"]];
for (const r of rows) {
  if (r.verdict !== "applies") {
    table.push([r.name, "n/a", "", "", "", r.why]);
    continue;
  }
  const cs = checks(r.name);
  if (!cs) {
    problems.push(`${r.name}: no results (did the suite run?)`);
    table.push([r.name, "yes", "", "", "", "NO RESULTS"]);
    continue;
  }
  const by = (st) => cs.filter((c) => c.status === st);
  const failed = by("FAILURE");
  const warned = by("WARNING");
  const passed = by("SUCCESS");
  for (const c of failed) problems.push(`${r.name}: ${c.id} failed: ${c.errorMessage || c.description}`);
  for (const c of warned) {
    if (!r.warns.includes(c.id)) problems.push(`${r.name}: ${c.id} warns: ${c.errorMessage || c.description}`);
  }
  if (passed.length === 0) problems.push(`${r.name}: no check passed`);
  const unexpected = warned.filter((c) => !r.warns.includes(c.id));
  let note = "pass";
  if (unexpected.length) note = `warns ${unexpected.map((c) => c.id).join(", ")}: NOT EXPECTED`;
  else if (warned.length) note = `pass; warns ${warned.map((c) => c.id).join(", ")} as expected: ${r.why}`;
  table.push([r.name, "yes", String(passed.length), String(failed.length), String(warned.length), failed.length ? "FAIL" : note]);
}

const widths = table[0].map((_, i) => Math.max(...table.map((row) => (i < 5 ? row[i].length : 0))));
for (const row of table) {
  console.log(row.map((c, i) => (i < 5 ? c.padEnd(widths[i]) : c)).join("  "));
}
if (problems.length) {
  console.error(`\nFAIL: ${problems.length} problem(s):`);
  for (const p of problems) console.error(`  - ${p}`);
  process.exit(1);
}
const applies = rows.filter((r) => r.verdict === "applies").length;
console.log(`\nconformance: ${applies} applicable scenarios pass, ${rows.length - applies} not applicable`);
