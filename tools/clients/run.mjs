// Checks Cairn's local service with the clients people use, against a real
// `cairn serve` (and `cairn mcp`) on 127.0.0.1: the official openai
// library, LangChain's ChatOpenAI and OpenAIEmbeddings, and the official
// MCP TypeScript SDK over stdio and streamable HTTP, plus plain fetch for
// what a browser page and curl see (origins, the HTTP API). Nothing leaves
// this computer: the knowledge base is a fixture made here, the embedding
// model a generated GGUF (tools/testgguf), the "online" chat model a fake
// endpoint on 127.0.0.1 that is slow, down, or breaks off on demand.
//
//   make test-clients            # builds bin/cairn and bin/testgguf, npm ci, then this
//   CAIRN_BIN=… CAIRN_TESTGGUF=… node run.mjs [--table FILE]
//
// It prints a table (area, call, result) and exits non-zero when a check
// fails. docs/service.md holds the table of the last run.
import { spawn, spawnSync, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, cpSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve, dirname } from "node:path";
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { ChatOpenAI, OpenAIEmbeddings } from "@langchain/openai";
import { HumanMessage, AIMessage, SystemMessage } from "@langchain/core/messages";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");
const cairnBin = process.env.CAIRN_BIN ?? join(repo, "bin/cairn");
const ggufBin = process.env.CAIRN_TESTGGUF ?? join(repo, "bin/testgguf");
const tableFile = process.argv.includes("--table") ? process.argv[process.argv.indexOf("--table") + 1] : "";
const started = Date.now();

// ---- the results table --------------------------------------------------
const rows = [];
async function check(area, call, fn) {
  const t0 = Date.now();
  try {
    const result = await fn();
    rows.push({ area, call, result: String(result), ok: true });
    console.log(`ok    ${area} | ${call} | ${result} (${Date.now() - t0} ms)`);
  } catch (e) {
    rows.push({ area, call, result: "FAIL: " + (e?.message ?? e), ok: false });
    console.log(`FAIL  ${area} | ${call} | ${e?.stack ?? e}`);
  }
}
const cut = (s, n = 70) => { s = String(s).replace(/\s+/g, " ").trim(); return s.length > n ? s.slice(0, n) + "…" : s; };

// ---- the fixture: documents, models, two knowledge bases ------------------
const manPages = {
  grep: "GREP(1)                          User Commands                         GREP(1)\n\nNAME\n       grep - print lines that match patterns\n\nOPTIONS\n       -i, --ignore-case\n              Ignore case distinctions in patterns and input data, so that\n              characters that differ only in case match each other.\n\n       -v, --invert-match\n              Invert the sense of matching, to select non-matching lines.\n",
  sort: "SORT(1)                          User Commands                         SORT(1)\n\nNAME\n       sort - sort lines of text files\n\nOPTIONS\n       -f, --ignore-case\n              fold lower case to upper case characters\n\n       -r, --reverse\n              reverse the result of comparisons\n",
  uniq: "UNIQ(1)                          User Commands                         UNIQ(1)\n\nNAME\n       uniq - report or omit repeated lines\n\nOPTIONS\n       -c, --count\n              prefix lines by the number of occurrences\n\n       -i, --ignore-case\n              ignore differences in case when comparing\n",
};
const work = mkdtempSync(join(tmpdir(), "cairn-clients-"));
const docs = join(work, "docs");
cpSync(join(repo, "testdata/corpus"), join(docs, "corpus"), { recursive: true });
mkdirSync(join(docs, "man"), { recursive: true });
for (const [name, text] of Object.entries(manPages)) writeFileSync(join(docs, "man", name + ".txt"), text);
mkdirSync(join(docs, "notes"), { recursive: true });
const special = ["meeting #3.md", "Übersicht 2024.md"];
for (const n of special) writeFileSync(join(docs, "notes", n), `# Kiln\n\nThe kiln of ${n} fires at 1240 degrees.\n`);
mkdirSync(join(docs, "glazes"), { recursive: true });
for (let i = 0; i < 62; i++) writeFileSync(join(docs, "glazes", `glaze${String(i).padStart(2, "0")}.md`), `# Glaze ${i}\n\nThe glaze recipe number ${i} uses feldspar.\n`);
mkdirSync(join(docs, "more"), { recursive: true });
for (let i = 0; i < 40; i++) writeFileSync(join(docs, "more", `n${String(i).padStart(3, "0")}.md`), `# Note ${i}\n\nA slip of clay number ${i}.\n`);
const bigFolder = join(work, "big");
mkdirSync(bigFolder);
for (let i = 0; i < 400; i++) writeFileSync(join(bigFolder, `b${i}.md`), `# Batch ${i}\n\n` + "Stoneware fired to cone six. ".repeat(200) + "\n");

function home(name) {
  const h = join(work, name);
  mkdirSync(join(h, "data/models"), { recursive: true });
  execFileSync(ggufBin, ["-spec", "tiny", "-o", join(h, "data/models/tiny-minilm-test.gguf")]);
  return h;
}
const mainHome = home("home");
const cairn = (args, env = {}) => execFileSync(cairnBin, args, { env: { ...process.env, CAIRN_HOME: mainHome, ...env }, encoding: "utf8" });
cairn(["index", docs]);
const token = cairn(["serve", "--print-token"]).trim();

// startServe starts `cairn serve --port 0` and resolves to its base URL.
function startServe(env) {
  return new Promise((ok, fail) => {
    const p = spawn(cairnBin, ["serve", "--port", "0"], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const timer = setTimeout(() => fail(new Error("cairn serve did not start: " + out)), 60000);
    p.stdout.on("data", (b) => {
      out += b;
      const m = out.match(/on http:\/\/(127\.0\.0\.1:\d+)/);
      if (m) { clearTimeout(timer); ok({ base: "http://" + m[1], proc: p }); }
    });
    p.stderr.on("data", (b) => { out += b; });
    p.on("exit", (code) => fail(new Error(`cairn serve exited ${code}: ${out}`)));
  });
}
const { base, proc: serveProc } = await startServe({ CAIRN_HOME: mainHome });

// The fake online chat model: an OpenAI-compatible endpoint on 127.0.0.1.
let fakeMode = "slow";
const fakeSeen = []; // the messages each request carried
const fake = createServer(async (req, res) => {
  let body = "";
  for await (const c of req) body += c;
  const msgs = JSON.parse(body || "{}").messages ?? [];
  fakeSeen.push(msgs);
  if (fakeMode === "down") {
    res.writeHead(503, { "Content-Type": "application/json" });
    return res.end(JSON.stringify({ error: { message: "the model is loading" } }));
  }
  res.writeHead(200, { "Content-Type": "text/event-stream" });
  const words = ["To reset it, press and hold", " the RESET button", " for ten seconds [1]."];
  for (const [i, w] of words.entries()) {
    res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: w } }] })}\n\n`);
    if (fakeMode === "break" && i === 0) {
      await new Promise((r) => setTimeout(r, 100)); // the first words are out
      return res.destroy();
    }
    await new Promise((r) => setTimeout(r, fakeMode === "slow" ? 700 : 10));
  }
  res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 321, completion_tokens: 12 } })}\n\n`);
  res.end("data: [DONE]\n\n");
});
await new Promise((r) => fake.listen(0, "127.0.0.1", r));
const fakeURL = `http://127.0.0.1:${fake.address().port}/v1`;
const onlineHome = home("online-home");
execFileSync(cairnBin, ["index", join(repo, "testdata/corpus")], { env: { ...process.env, CAIRN_HOME: onlineHome } });
const onlineToken = execFileSync(cairnBin, ["serve", "--print-token"], { env: { ...process.env, CAIRN_HOME: onlineHome }, encoding: "utf8" }).trim();
const { base: onlineBase, proc: onlineProc } = await startServe({
  CAIRN_HOME: onlineHome, CAIRN_NETWORK_MODE: "online", CAIRN_NETWORK_API: "openai", CAIRN_NETWORK_ENDPOINT: fakeURL,
  CAIRN_NETWORK_CHAT_MODEL: "fake-gpt", CAIRN_API_KEY: "sk-local-fake", CAIRN_ANSWER_REWRITE: "false",
});

const openai = new OpenAI({ baseURL: base + "/v1", apiKey: token, maxRetries: 0 });
const online = new OpenAI({ baseURL: onlineBase + "/v1", apiKey: onlineToken, maxRetries: 0 });
const api = async (method, path, body, headers = {}, url = base, tok = token) => {
  const r = await fetch(url + path, {
    method, headers: { Authorization: "Bearer " + tok, ...(body ? { "Content-Type": "application/json" } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  let json;
  try { json = JSON.parse(text); } catch { json = undefined; }
  return { status: r.status, headers: r.headers, text, json };
};
const textOf = (c) => c.choices[0].message.content;
const expectError = async (fn, status, ...parts) => {
  try { await fn(); } catch (e) {
    assert.equal(e.status, status, `status ${e.status}: ${e.message}`);
    for (const p of parts) assert.ok(e.message.includes(p), `"${p}" not in "${e.message}"`);
    return `${e.status} ${e.constructor.name}: "${cut(e.message, 90)}"`;
  }
  throw new Error("no error");
};

// ---- openai: models, chat, completions, embeddings --------------------------
await check("openai", "models.list()", async () => {
  const m = await openai.models.list();
  const ids = m.data.map((x) => x.id);
  assert.deepEqual(ids, ["cairn", "tiny-minilm-test"]);
  assert.ok(m.data[0].created > 1.7e9);
  return `${ids.join(", ")}; created ${new Date(m.data[0].created * 1000).toISOString().slice(0, 10)}`;
});
await check("openai", 'models.retrieve("cairn")', async () => {
  const m = await openai.models.retrieve("cairn");
  assert.equal(m.id, "cairn");
  return `${m.id}, owned by ${m.owned_by}`;
});
const question = "How do I reset the router?";
let plain;
await check("openai", "chat.completions.create (plain)", async () => {
  plain = await openai.chat.completions.create({ model: "cairn", messages: [{ role: "system", content: "Answer from my documents." }, { role: "user", content: question }] });
  const t = textOf(plain);
  assert.ok(t.includes("RESET button") && t.includes("\n\nSources:\n[1] "), t);
  assert.ok(plain.created > 1.7e9 && plain.usage.total_tokens > 0 && plain.citations?.length > 0);
  return `"${cut(t, 50)}", ${plain.citations.length} citation, usage ${plain.usage.prompt_tokens}+${plain.usage.completion_tokens} tokens`;
});
await check("openai", "chat (stream, include_usage)", async () => {
  const stream = await openai.chat.completions.create({ model: "cairn", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: question }] });
  let text = "", usage, chunks = 0, finish;
  for await (const ch of stream) {
    chunks++;
    text += ch.choices[0]?.delta?.content ?? "";
    finish ??= ch.choices[0]?.finish_reason ?? undefined;
    if (ch.usage) usage = ch.usage;
  }
  assert.equal(text, textOf(plain));
  assert.ok(usage?.total_tokens > 0 && finish === "stop");
  return `${chunks} chunks, the same text, finish ${finish}, usage ${usage.total_tokens} tokens`;
});
await check("openai", "chat, three turns (grep, then sort, then uniq)", async () => {
  const msgs = [];
  const got = [];
  for (const [q, want] of [["How do I ignore case with grep?", "-i, --ignore-case"], ["and for sort?", "-f, --ignore-case"], ["and for uniq?", "ignore differences in case"]]) {
    msgs.push({ role: "user", content: q });
    const c = await openai.chat.completions.create({ model: "cairn", messages: msgs });
    const t = textOf(c);
    assert.ok(t.includes(want), `${q}: ${t}`);
    if (got.length > 0) assert.ok(t.includes(`Read as a follow-up of "${msgs[msgs.length - 3].content}"; searched for: `) && c.follow_up, t);
    got.push(`${q} → ${want}`);
    msgs.push({ role: "assistant", content: t });
  }
  return got.join("; ") + ' (turns 2 and 3 say "Read as a follow-up of …")';
});
await check("openai", "completions.create (legacy)", async () => {
  const c = await openai.completions.create({ model: "cairn", prompt: question });
  assert.ok(c.choices[0].text.includes("RESET button") && c.usage.total_tokens > 0);
  return `"${cut(c.choices[0].text, 50)}", usage ${c.usage.total_tokens}`;
});
await check("openai", "embeddings.create (base64, the SDK's default, and float)", async () => {
  const input = ["reset the router", "the kiln fires at 1240 degrees"];
  const b = await openai.embeddings.create({ model: "tiny-minilm-test", input });
  const f = await openai.embeddings.create({ model: "tiny-minilm-test", input, encoding_format: "float" });
  assert.equal(b.data.length, 2);
  assert.equal(b.data[0].embedding.length, 32);
  for (let i = 0; i < 2; i++) for (let j = 0; j < 32; j++) assert.equal(Math.fround(b.data[i].embedding[j]), Math.fround(f.data[i].embedding[j]));
  return `2 vectors of ${b.data[0].embedding.length}, the same in both encodings, ${b.usage.total_tokens} tokens`;
});

// ---- openai: every refusal --------------------------------------------------
await check("openai errors", "a wrong API key", () => expectError(() => new OpenAI({ baseURL: base + "/v1", apiKey: "wrong", maxRetries: 0 }).models.list(), 401, "a valid bearer token is required"));
await check("openai errors", 'models.retrieve("gpt-4o")', () => expectError(() => openai.models.retrieve("gpt-4o"), 404, "does not exist"));
await check("openai errors", "chat with model gpt-4o", () => expectError(() => openai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: question }] }), 404, "does not exist"));
await check("openai errors", "an unknown path (GET /v1/engines)", () => expectError(() => openai.get("/engines"), 404, "Invalid URL (GET /v1/engines)"));
await check("openai errors", "n: 2", () => expectError(() => openai.chat.completions.create({ model: "cairn", n: 2, messages: [{ role: "user", content: question }] }), 400, "one answer"));
await check("openai errors", "tools", () => expectError(() => openai.chat.completions.create({ model: "cairn", tools: [{ type: "function", function: { name: "f", parameters: {} } }], messages: [{ role: "user", content: question }] }), 400, "calls no tools"));
await check("openai errors", "response_format json_object", () => expectError(() => openai.chat.completions.create({ model: "cairn", response_format: { type: "json_object" }, messages: [{ role: "user", content: question }] }), 400, "not in JSON"));
await check("openai errors", "no user message", () => expectError(() => openai.chat.completions.create({ model: "cairn", messages: [{ role: "system", content: "hi" }] }), 400, "no user message"));
await check("openai errors", "a body over 64 KiB", () => expectError(() => openai.chat.completions.create({ model: "cairn", messages: [{ role: "user", content: "x".repeat(70000) }] }), 413, "over the limit of 65536 bytes"));
await check("openai errors", "a question over 4096 bytes", () => expectError(() => openai.chat.completions.create({ model: "cairn", messages: [{ role: "user", content: "why ".repeat(1100) }] }), 413, "the query is over the limit of 4096 bytes"));
await check("openai errors", "page: 0", () => expectError(() => openai.chat.completions.create({ model: "cairn", page: 0, messages: [{ role: "user", content: question }] }), 400, "page: 0 is not a page"));

// ---- the chat model behind /v1 (the fake online endpoint) -------------------
await check("chat model", "3 questions at once, 2 slots: 429 with Retry-After", async () => {
  fakeMode = "slow";
  const one = () => fetch(onlineBase + "/v1/chat/completions", { method: "POST", headers: { Authorization: "Bearer " + onlineToken, "Content-Type": "application/json" },
    body: JSON.stringify({ model: "cairn", messages: [{ role: "user", content: question }] }) });
  const first = [one(), one()];
  await new Promise((r) => setTimeout(r, 500));
  const third = await one();
  const body = await third.json();
  const firsts = await Promise.all(first);
  assert.equal(third.status, 429);
  assert.equal(body.error.type, "rate_limit_error");
  assert.ok(Number(third.headers.get("retry-after")) >= 1);
  assert.deepEqual(firsts.map((r) => r.status), [200, 200]);
  return `429, Retry-After ${third.headers.get("retry-after")}: "${cut(body.error.message, 80)}"`;
});
await check("chat model", "the same after two answers of 2.1 s", async () => {
  const one = () => fetch(onlineBase + "/api/ask", { method: "POST", headers: { Authorization: "Bearer " + onlineToken, "Content-Type": "application/json" }, body: JSON.stringify({ question }) });
  const first = [one(), one()];
  await new Promise((r) => setTimeout(r, 300));
  const third = await one();
  await Promise.all(first);
  assert.equal(third.status, 429);
  const wait = Number(third.headers.get("retry-after"));
  assert.ok(wait >= 2 && wait <= 3, `Retry-After ${wait}`);
  return `429, Retry-After ${wait} (answers take 2.1 s; those under way began 0.3 s before)`;
});
await check("chat model", "three turns reach the chat model", async () => {
  fakeMode = "fast";
  fakeSeen.length = 0;
  const msgs = [{ role: "user", content: "How do I reset the router?" }, { role: "assistant", content: "Hold RESET [1].\n\nSources:\n[1] router-x200.md:10" },
    { role: "user", content: "and the admin password?" }, { role: "assistant", content: "It is on the label [1]." }, { role: "user", content: "and the Wi-Fi password?" }];
  const c = await online.chat.completions.create({ model: "cairn", messages: msgs });
  const sent = fakeSeen.at(-1).filter((m) => m.role !== "system");
  const earlier = sent.slice(0, -1).map((m) => `${m.role}: ${m.content}`);
  assert.deepEqual(earlier, ["user: Question: How do I reset the router?", "assistant: Hold RESET.", "user: Question: and the admin password?", "assistant: It is on the label."]);
  assert.ok(sent.at(-1).content.includes("Wi-Fi password"));
  assert.equal(c.usage.prompt_tokens, 321);
  return `the model was sent the 2 earlier turns as messages (${earlier.map((e) => JSON.stringify(cut(e, 40))).join(", ")}) before the sources and the question; usage is the model's (${c.usage.prompt_tokens}+${c.usage.completion_tokens})`;
});
await check("chat model", "model down: /v1 gives the quoted answer, and says so", async () => {
  fakeMode = "down";
  const c = await online.chat.completions.create({ model: "cairn", messages: [{ role: "user", content: question }] });
  const t = textOf(c);
  assert.ok(t.includes("RESET button") && t.includes("Note: Quoted answer: the online chat model fake-gpt at 127.0.0.1"), t);
  return `200: "${cut(t.slice(t.indexOf("Note: Quoted")), 110)}"`;
});
await check("chat model", "model down: /api/ask gives the quoted answer", async () => {
  const r = await api("POST", "/api/ask", { question }, {}, onlineBase, onlineToken);
  assert.equal(r.status, 200);
  assert.equal(r.json.mode, "extractive");
  assert.ok(r.json.notes[0].startsWith("Quoted answer: the online chat model"), r.text);
  return `200, mode extractive, notes[0] "${cut(r.json.notes[0], 80)}"`;
});
await check("chat model", "model breaks off mid-stream (/v1, stream)", async () => {
  fakeMode = "break";
  const stream = await online.chat.completions.create({ model: "cairn", stream: true, messages: [{ role: "user", content: question }] });
  let text = "";
  for await (const ch of stream) text += ch.choices[0]?.delta?.content ?? "";
  assert.ok(text.startsWith("To reset it, press and hold\n\n(Quoted answer: the online chat model fake-gpt at 127.0.0.1:") && text.includes("RESET button") && !/cancel/i.test(text), text);
  return `"${cut(text, 120)}"`;
});
await check("chat model", "model breaks off mid-stream (/api/ask, stream)", async () => {
  const r = await api("POST", "/api/ask", { question, stream: true }, {}, onlineBase, onlineToken);
  assert.ok(r.text.includes("event: answer") && !r.text.includes("event: error") && r.text.includes("Quoted answer: the online chat model"), r.text);
  return "token events, then a note, the quoted answer's tokens, citations, verdict, answer; no error event";
});
fakeMode = "slow";

// ---- LangChain ------------------------------------------------------------
const lc = (o = {}) => new ChatOpenAI({ model: "cairn", apiKey: token, configuration: { baseURL: base + "/v1" }, maxRetries: 0, ...o });
await check("LangChain", "ChatOpenAI.invoke", async () => {
  const m = await lc().invoke([new SystemMessage("Answer from my documents."), new HumanMessage(question)]);
  assert.ok(String(m.content).includes("RESET button"));
  return `"${cut(m.content, 60)}"`;
});
await check("LangChain", "ChatOpenAI.stream", async () => {
  let text = "", n = 0;
  for await (const ch of await lc().stream([new HumanMessage(question)])) { text += ch.content; n++; }
  assert.equal(text, textOf(plain));
  return `${n} chunks, the same text as the openai library's`;
});
await check("LangChain", "ChatOpenAI, three turns", async () => {
  const h = [new HumanMessage("How do I ignore case with grep?")];
  h.push(await lc().invoke(h));
  h.push(new HumanMessage("and for sort?"));
  const m = await lc().invoke(h);
  assert.ok(String(m.content).includes("-f, --ignore-case") && String(m.content).includes("Read as a follow-up of"), m.content);
  return `"and for sort?" → -f, --ignore-case, read as a follow-up`;
});
await check("LangChain", "ChatOpenAI with model gpt-4o", async () => {
  try { await lc({ model: "gpt-4o" }).invoke([new HumanMessage(question)]); } catch (e) {
    assert.ok(e.message.includes("does not exist"), e.message);
    return `error: "${cut(e.message, 90)}"`;
  }
  throw new Error("no error");
});
await check("LangChain", "OpenAIEmbeddings.embedQuery", async () => {
  const e = new OpenAIEmbeddings({ model: "tiny-minilm-test", apiKey: token, configuration: { baseURL: base + "/v1" }, maxRetries: 0 });
  const v = await e.embedQuery("reset the router");
  const d = await e.embedDocuments(["reset the router"]);
  assert.equal(v.length, 32);
  assert.deepEqual(v, d[0]);
  return `${v.length} dimensions; embedQuery and embedDocuments agree`;
});

// ---- origins and CORS (what a page's fetch sends) ----------------------------
await check("origins", "preflight (OPTIONS, no token) from app://, tauri://localhost, http://tauri.localhost, file://, null, vscode-webview://…", async () => {
  const out = [];
  for (const origin of ["app://obsidian.md", "tauri://localhost", "http://tauri.localhost", "file://", "null", "vscode-webview://1a2b3c", "http://localhost:3000"]) {
    const r = await fetch(base + "/v1/chat/completions", { method: "OPTIONS", headers: { Origin: origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type" } });
    assert.equal(r.status, 204, origin);
    assert.equal(r.headers.get("access-control-allow-origin"), origin);
    const g = await api("GET", "/v1/models", undefined, { Origin: origin });
    assert.equal(g.status, 200, origin);
    out.push(origin);
  }
  return `204 with Access-Control-Allow-Origin for each, and 200 with the token (${out.length} origins)`;
});
await check("origins", "a web site's page (https://example.com)", async () => {
  const r = await fetch(base + "/v1/chat/completions", { method: "OPTIONS", headers: { Origin: "https://example.com", "Access-Control-Request-Method": "POST" } });
  const g = await api("GET", "/v1/models", undefined, { Origin: "https://example.com" });
  assert.equal(r.status, 403);
  assert.equal(r.headers.get("access-control-allow-origin"), null);
  assert.equal(g.status, 403);
  return `preflight 403, no CORS headers; with the token 403 "${cut(g.json.error.message)}"`;
});

// ---- the HTTP API ----------------------------------------------------------
await check("API", "GET /api/search, page 1 and 2 (top_k 5)", async () => {
  const p1 = await api("GET", "/api/search?q=feldspar+glaze&top_k=5&page=1");
  const p2 = await api("GET", "/api/search?q=feldspar+glaze&top_k=5&page=2");
  assert.deepEqual(p1.json.results.map((r) => r.rank), [1, 2, 3, 4, 5]);
  assert.deepEqual(p2.json.results.map((r) => r.rank), [6, 7, 8, 9, 10]);
  assert.equal(p1.json.next_page, 2);
  return `ranks 1–5, next_page 2; ranks 6–10, next_page ${p2.json.next_page}`;
});
await check("API", "POST /api/ask, a list of 62 files, page 2", async () => {
  const r = await api("POST", "/api/ask", { question: "which files mention feldspar?", page: 2 });
  assert.ok(r.json.answer.includes("Files 51–62 of 62 (page 2 of 2)."), r.text);
  return "Files 51–62 of 62 (page 2 of 2).";
});
await check("openai", "chat: a list of 62 files, then \"next page\"", async () => {
  const msgs = [{ role: "user", content: "which files mention feldspar?" }];
  const first = textOf(await openai.chat.completions.create({ model: "cairn", messages: msgs }));
  assert.ok(first.includes("Files 1–50 of 62 (page 1 of 2).") && first.includes('Say "next page" for files 51–62'), first);
  msgs.push({ role: "assistant", content: first }, { role: "user", content: "next page" });
  const second = textOf(await openai.chat.completions.create({ model: "cairn", messages: msgs }));
  assert.ok(second.includes("Files 51–62 of 62 (page 2 of 2)."), second);
  return 'page 1 of 2 says "Say \\"next page\\" for files 51–62"; "next page" gives files 51–62';
});
await check("API", 'path_contains "übersicht" (API and CLI)', async () => {
  const r = await api("GET", "/api/search?q=kiln&path_contains=%C3%BCbersicht");
  const cli = JSON.parse(cairn(["search", "--json", "--path-contains", "übersicht", "kiln"]));
  assert.equal(r.json.results.length, 1);
  assert.ok(r.json.results[0].path.endsWith("Übersicht 2024.md"));
  assert.deepEqual(cli.results.map((x) => x.chunk_id), r.json.results.map((x) => x.chunk_id));
  return "Übersicht 2024.md, the same result from `cairn search --path-contains übersicht`";
});
await check("API", "POST /api/ask with new, then continue", async () => {
  const a = await api("POST", "/api/ask", { question: "How do I ignore case with grep?", new: true });
  const b = await api("POST", "/api/ask", { question: "and for sort?", continue: true });
  assert.ok(a.json.thread > 0 && b.json.thread === a.json.thread && b.json.follow_up?.of === "How do I ignore case with grep?", b.text);
  return `thread ${a.json.thread}; "and for sort?" continued it, follow_up.searched "${b.json.follow_up.searched}"`;
});
await check("API", "thread 999 (none)", async () => {
  const r = await api("POST", "/api/ask", { question: "x", thread: 999 });
  assert.equal(r.status, 404);
  return `${r.status} "${cut(r.json.detail)}"`;
});
await check("API", "a relative folder: /api/index and /api/search", async () => {
  const i = await api("POST", "/api/index", { folder: "notes" });
  const s = await api("GET", "/api/search?q=kiln&folder=notes");
  assert.equal(i.status, 422);
  assert.equal(s.status, 422);
  return `both 422: "${cut(i.json.detail, 60)}"`;
});
await check("API", "GET /api/status", async () => {
  const r = await api("GET", "/api/status");
  const s = r.json;
  assert.ok(s.device && s.embedding_model_loaded && s.last_run?.status === "done", r.text);
  return `device ${s.device}, embedding model ${s.embedding_model_loaded}, chat model "${s.chat_model}", last run ${s.last_run.status} (${s.last_run.files_indexed} files)`;
});
await check("API", "GET /api/status (online)", async () => {
  const r = await api("GET", "/api/status", undefined, {}, onlineBase, onlineToken);
  assert.match(r.json.chat_model, /^fake-gpt at 127\.0\.0\.1:\d+ \(online\)$/);
  return `chat_model "${r.json.chat_model}", loaded ${r.json.chat_model_loaded}`;
});
await check("API", "DELETE /api/index during a run of 400 files", async () => {
  const s = await api("POST", "/api/index", { folder: bigFolder });
  assert.equal(s.status, 202);
  await new Promise((r) => setTimeout(r, 300));
  const d = await api("DELETE", "/api/index");
  if (d.status === 409) return "the run was over before the cancel (nothing to check)";
  assert.equal(d.status, 200);
  assert.ok(d.json.cancelled && d.json.elapsed_ms > 0, d.text);
  return `cancelled after ${d.json.elapsed_ms} ms, ${d.json.files_done} files done`;
});
// However far the cancelled run got (on a fast machine it may finish first),
// the 400-file folder is forgotten again so the counts below are exact.
for (let i = 0; i < 200; i++) {
  const p = await api("GET", "/api/index");
  if (p.status !== 200 || !p.json.running) break;
  await new Promise((r) => setTimeout(r, 100));
}
cairn(["remove", bigFolder, "--yes"]);
await check("CLI", "cairn search --help: -bm25-pool", async () => {
  const run = spawnSync(cairnBin, ["search", "--help"], { env: { ...process.env, CAIRN_HOME: mainHome }, encoding: "utf8" });
  const help = run.stdout + run.stderr;
  const lines = help.split("\n");
  const i = lines.findIndex((l) => l.includes("-bm25-pool"));
  const text = (lines[i] + " " + lines[i + 1]).trim();
  assert.equal((text.match(/default/g) ?? []).length, 1, text);
  return `"${cut(text, 100)}"`;
});

// ---- MCP ------------------------------------------------------------------
async function mcpChecks(name, transport) {
  const client = new Client({ name: "cairn-client-check", version: "1" });
  await client.connect(transport);
  await check(`MCP ${name}`, "tools/list", async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["ask", "open_citation", "search", "status"]);
    for (const t of tools) assert.ok(t.annotations?.readOnlyHint === true && t.annotations?.openWorldHint === false, t.name);
    return "4 tools, each readOnlyHint true, openWorldHint false";
  });
  let chunk;
  await check(`MCP ${name}`, "search, then page 2", async () => {
    const r = await client.callTool({ name: "search", arguments: { query: "feldspar glaze", top_k: 5 } });
    const r2 = await client.callTool({ name: "search", arguments: { query: "feldspar glaze", top_k: 5, page: 2 } });
    chunk = r.structuredContent.results[0].chunk_id;
    assert.deepEqual(r2.structuredContent.results.map((x) => x.rank), [6, 7, 8, 9, 10]);
    return `ranks 1–5, then 6–10 (next_page ${r2.structuredContent.next_page})`;
  });
  await check(`MCP ${name}`, "ask, open_citation, status", async () => {
    const a = await client.callTool({ name: "ask", arguments: { question } });
    const o = await client.callTool({ name: "open_citation", arguments: { chunk_id: chunk } });
    const s = await client.callTool({ name: "status", arguments: {} });
    assert.ok(a.structuredContent.answer.includes("RESET button") && o.structuredContent.text && s.structuredContent.documents === 115, JSON.stringify(s.structuredContent).slice(0, 300));
    return `answer with ${a.structuredContent.citations.length} citation; passage ${chunk}; ${s.structuredContent.documents} documents`;
  });
  await check(`MCP ${name}`, "resources/list (115 documents)", async () => {
    const p1 = await client.listResources();
    const p2 = await client.listResources({ cursor: p1.nextCursor });
    assert.equal(p1.resources.length + p2.resources.length, 115);
    assert.ok(!p2.nextCursor);
    return `${p1.resources.length} + ${p2.resources.length} in two pages`;
  });
  await check(`MCP ${name}`, "resources/read, raw and encoded URIs (#, space, Ü)", async () => {
    let n = 0;
    for (const f of special) {
      const path = join(docs, "notes", f);
      for (const uri of ["file://" + path, "file://" + encodeURI(path).replace(/#/g, "%23")]) {
        const r = await client.readResource({ uri });
        assert.ok(r.contents[0].text.includes("The kiln of " + f), uri);
        n++;
      }
    }
    return `${n} reads: "meeting #3.md" and "Übersicht 2024.md", each raw and percent-encoded`;
  });
  await client.close();
}
await mcpChecks("stdio", new StdioClientTransport({ command: cairnBin, args: ["mcp"], env: { ...process.env, CAIRN_HOME: mainHome } }));
await mcpChecks("HTTP", new StreamableHTTPClientTransport(new URL(base + "/mcp"), { requestInit: { headers: { Authorization: "Bearer " + token } } }));

// ---- done -------------------------------------------------------------------
serveProc.kill("SIGTERM");
onlineProc.kill("SIGTERM");
fake.close();
const failed = rows.filter((r) => !r.ok).length;
const seconds = ((Date.now() - started) / 1000).toFixed(0);
const table = ["| area | call | result |", "|---|---|---|",
  ...rows.map((r) => `| ${r.area} | ${r.call.replace(/\|/g, "\\|")} | ${r.result.replace(/\|/g, "\\|")} |`)].join("\n");
console.log("\n" + table + `\n\n${rows.length - failed} of ${rows.length} passed in ${seconds} s`);
if (tableFile) writeFileSync(tableFile, table + `\n\n${rows.length - failed} of ${rows.length} passed in ${seconds} s (node ${process.version}; openai ${JSON.parse(readFileSync(join(here, "node_modules/openai/package.json"))).version}, @langchain/openai ${JSON.parse(readFileSync(join(here, "node_modules/@langchain/openai/package.json"))).version}, @modelcontextprotocol/sdk ${JSON.parse(readFileSync(join(here, "node_modules/@modelcontextprotocol/sdk/package.json"))).version}).\n`);
process.exit(failed ? 1 : 0);
