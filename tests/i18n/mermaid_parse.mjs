// Parse every diagram given as a JSON list on stdin with Mermaid's own parser; print, as JSON,
// one error message (or null) per diagram. Run from a folder whose node_modules holds mermaid and
// jsdom (mermaid sanitizes flowchart labels with DOMPurify, which needs a DOM window).
const { JSDOM } = await import("jsdom");
const dom = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false });
let input = "";
for await (const chunk of process.stdin) input += chunk;
const results = [];
for (const text of JSON.parse(input)) {
  try {
    await mermaid.parse(text);
    results.push(null);
  } catch (error) {
    results.push(String(error.message ?? error));
  }
}
process.stdout.write(JSON.stringify(results));
