// Load on the local service as several clients make it: `--clients`
// searching through GET /api/search and `--chat` asking through
// POST /v1/chat/completions (quoted answers: no chat model) at the same
// time, for `--seconds`. A chat client turned away (429) waits the
// Retry-After it was given and asks again, as the openai library does.
// Prints searches, answers, p50/p95/p99, errors and 429s per binary and
// run; with two binaries (--bin A --bin B) the runs alternate, A B A B…,
// so that both meet the same background.
//
//   node load.mjs --docs DIR --bin ../../bin/cairn [--bin /tmp/cairn-before] [--runs 2]
//        [--clients 16] [--chat 4] [--seconds 20]
//
// The knowledge base (BM25 only) is built once from DIR in a temporary
// CAIRN_HOME, by the first binary. docs/performance.md, The local service
// under load, has the figures.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir, loadavg } from "node:os";
import { join } from "node:path";

const args = process.argv.slice(2);
const opt = (name, def) => { const i = args.indexOf("--" + name); return i >= 0 ? args[i + 1] : def; };
const bins = args.flatMap((a, i) => (a === "--bin" ? [args[i + 1]] : []));
const docs = opt("docs");
const runs = Number(opt("runs", 2)), clients = Number(opt("clients", 16)), chatClients = Number(opt("chat", 4)), seconds = Number(opt("seconds", 20));
if (!docs || bins.length === 0) {
  console.error("usage: node load.mjs --docs DIR --bin CAIRN [--bin CAIRN2] [--runs 2] [--clients 16] [--chat 4] [--seconds 20]");
  process.exit(2);
}
const home = mkdtempSync(join(tmpdir(), "cairn-load-"));
const env = { ...process.env, CAIRN_HOME: home };
let t0 = Date.now();
execFileSync(bins[0], ["index", docs], { env, stdio: "ignore" });
const status = JSON.parse(execFileSync(bins[0], ["status", "--json"], { env, encoding: "utf8" }));
console.log(`knowledge base: ${status.documents} documents, ${status.chunks} chunks, built in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
const token = execFileSync(bins[0], ["serve", "--print-token"], { env, encoding: "utf8" }).trim();

const queries = ["copy files recursively preserving permissions", "extract a tar archive", "show disk usage of a directory", "find files modified in the last day",
  "change the owner of a file", "compress with the best compression", "list open network ports", "follow a log file as it grows",
  "count lines words and bytes", "sort numerically in reverse", "replace text in a file with sed", "print the first lines of a file",
  "kill a process by name", "schedule a job with cron", "set environment variable for a command", "mount a filesystem read only",
  "verify a checksum", "create a symbolic link", "show the routing table", "search text ignoring case", "split a file into pieces",
  "synchronise directories over ssh", "print the calendar", "convert image formats", "archive with compression level"];
const questions = ["How do I extract a tar archive?", "How do I follow a log file as it grows?", "How do I search text ignoring case?",
  "How do I create a symbolic link?", "How do I show disk usage of a directory?", "How do I verify a checksum?"];

function serve(bin) {
  return new Promise((ok, fail) => {
    const p = spawn(bin, ["serve", "--port", "0"], { env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    p.stdout.on("data", (b) => { out += b; const m = out.match(/on http:\/\/(127\.0\.0\.1:\d+)/); if (m) ok({ base: "http://" + m[1], p }); });
    p.stderr.on("data", (b) => { out += b; });
    p.on("exit", (c) => fail(new Error(`serve exited ${c}: ${out}`)));
  });
}
const pct = (xs, q) => { if (!xs.length) return NaN; const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))]; };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function run(bin) {
  const { base, p } = await serve(bin);
  const h = { Authorization: "Bearer " + token, "Content-Type": "application/json" };
  // Warm: the service builds its in-memory keyword index at start and
  // searches FTS5 (seconds a search here) until it is ready; measure once
  // searches one at a time take under 250 ms, as the index answers them.
  const warm = [];
  for (let n = 0, until = Date.now() + 120000; Date.now() < until; n++) {
    const t = performance.now();
    const r = await fetch(base + "/api/search?q=" + encodeURIComponent(queries[n % queries.length]), { headers: h });
    await r.text();
    if (r.ok) warm.push(performance.now() - t);
    if (warm.length >= 10 && pct(warm.slice(-10), 0.5) < 250) break;
  }
  const end = Date.now() + seconds * 1000;
  const search = { ms: [], errors: 0, sample: "" };
  const chat = { ms: [], errors: 0, busy: 0, waited: 0, retryAfter: [], sample: "" };
  const load0 = loadavg()[0];
  const searcher = async (i) => {
    for (let n = i; Date.now() < end; n++) {
      const t = performance.now();
      try {
        const r = await fetch(base + "/api/search?q=" + encodeURIComponent(queries[n % queries.length]), { headers: h });
        await r.text();
        if (r.ok) search.ms.push(performance.now() - t); else { search.errors++; search.sample ||= `${r.status}`; }
      } catch (e) { search.errors++; search.sample ||= e.message; }
    }
  };
  const asker = async (i) => {
    for (let n = i; Date.now() < end; n++) {
      const t = performance.now();
      for (;;) {
        try {
          const r = await fetch(base + "/v1/chat/completions", { method: "POST", headers: h,
            body: JSON.stringify({ model: "cairn", messages: [{ role: "user", content: questions[n % questions.length] }] }) });
          await r.text();
          if (r.status === 429) {
            const wait = Number(r.headers.get("retry-after") ?? 1);
            chat.busy++; chat.retryAfter.push(wait); chat.waited += wait;
            if (Date.now() + wait * 1000 > end) return;
            await sleep(wait * 1000);
            continue;
          }
          if (r.ok) chat.ms.push(performance.now() - t); else { chat.errors++; chat.sample ||= `${r.status}`; }
        } catch (e) { chat.errors++; chat.sample ||= e.message; }
        break;
      }
    }
  };
  await Promise.all([...Array(clients)].map((_, i) => searcher(i)).concat([...Array(chatClients)].map((_, i) => asker(i))));
  const load1 = loadavg()[0];
  p.kill("SIGTERM");
  await new Promise((r) => p.on("exit", r));
  return { search, chat, load: `${load0.toFixed(1)}–${load1.toFixed(1)}` };
}

const f = (x) => (Number.isNaN(x) ? "–" : x.toFixed(0));
console.log(`\n${clients} clients searching and ${chatClients} asking through /v1/chat/completions, ${seconds} s a run\n`);
console.log("| binary | run | searches | p50 | p95 | p99 | errors | answers | p50 | p95 | max | 429s (Retry-After) | errors | load average |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
for (let r = 1; r <= runs; r++) {
  for (const bin of bins) {
    const { search: s, chat: c, load } = await run(bin);
    const ra = c.retryAfter.length ? `${c.busy} (${Math.min(...c.retryAfter)}–${Math.max(...c.retryAfter)} s)` : "0";
    console.log(`| ${bin} | ${r} | ${s.ms.length} | ${f(pct(s.ms, 0.5))} ms | ${f(pct(s.ms, 0.95))} ms | ${f(pct(s.ms, 0.99))} ms | ${s.errors}${s.sample ? " (" + s.sample + ")" : ""} | ` +
      `${c.ms.length} | ${f(pct(c.ms, 0.5))} ms | ${f(pct(c.ms, 0.95))} ms | ${f(pct(c.ms, 1))} ms | ${ra} | ${c.errors}${c.sample ? " (" + c.sample + ")" : ""} | ${load} |`);
  }
}
