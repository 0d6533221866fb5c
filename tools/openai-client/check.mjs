// Checks Cairn's OpenAI-compatible endpoint with the official openai
// client, as a chat client uses it. Against a running `cairn serve` whose
// knowledge base holds testdata/corpus:
//
//   cd tools/openai-client && npm install
//   CAIRN_URL=http://127.0.0.1:8765/v1 CAIRN_TOKEN=$(cairn serve --print-token) npm run check
//
// It exits non-zero, saying what failed, when a check fails.
import OpenAI from "openai";

const client = new OpenAI({ baseURL: process.env.CAIRN_URL ?? "http://127.0.0.1:8765/v1", apiKey: process.env.CAIRN_TOKEN });
const question = process.env.CAIRN_QUESTION ?? "how do I reset the device";
const fail = (what) => { console.error("FAIL:", what); process.exit(1); };

const models = await client.models.list();
const ids = models.data.map((m) => m.id);
if (!ids.includes("cairn")) fail(`models ${ids}`);
console.log("models:", ids.join(", "));

const messages = [{ role: "system", content: "Answer from my documents." }, { role: "user", content: question }];
const whole = await client.chat.completions.create({ model: "cairn", messages });
const text = whole.choices[0].message.content;
if (whole.choices[0].finish_reason !== "stop" || !text.includes("\n\nSources:\n[1] ")) fail(`completion ${JSON.stringify(whole)}`);
if (!Array.isArray(whole.citations) || whole.citations.length === 0 || !whole.citations[0].file) fail(`citations ${JSON.stringify(whole.citations)}`);
console.log("completion:", JSON.stringify(text.slice(0, 120)), "…", whole.citations.length, "citations");

const stream = await client.chat.completions.create({ model: "cairn", messages, stream: true });
let streamed = "";
let last;
for await (const chunk of stream) {
  streamed += chunk.choices[0]?.delta?.content ?? "";
  last = chunk;
}
if (streamed !== text) fail(`streamed ${JSON.stringify(streamed)} is not ${JSON.stringify(text)}`);
if (last.choices[0].finish_reason !== "stop" || last.citations?.length !== whole.citations.length) fail(`last chunk ${JSON.stringify(last)}`);
console.log("stream:", streamed.length, "characters, the same text, citations in the last chunk");

try {
  await new OpenAI({ baseURL: client.baseURL, apiKey: "wrong" }).models.list();
  fail("a wrong token was let in");
} catch (e) {
  if (e.status !== 401) fail(`wrong token: ${e}`);
}
console.log("wrong token: 401\nok");
